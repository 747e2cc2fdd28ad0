// 自测模式: fold the answer sections of every question until the reader clicks them; remember the choice.
(() => {
  const KEY = "studyguide-selftest";
  const ANSWERS = ["short-answer", "details", "pitfalls", "follow-ups"];

  function sections() {
    return ANSWERS.map((id) => document.getElementById(id)).filter(Boolean);
  }

  function apply(on) {
    document.documentElement.dataset.selftest = on ? "on" : "off";
    for (const section of sections()) section.classList.toggle("studyguide-folded", on);
    const box = document.getElementById("studyguide-selftest-toggle");
    if (box) box.checked = on;
  }

  function stored() {
    try { return localStorage.getItem(KEY) === "on"; } catch (e) { return false; }
  }

  document.addEventListener("DOMContentLoaded", () => {
    apply(stored());
    const box = document.getElementById("studyguide-selftest-toggle");
    if (box) {
      box.addEventListener("change", () => {
        try { localStorage.setItem(KEY, box.checked ? "on" : "off"); } catch (e) { /* private mode */ }
        apply(box.checked);
      });
    }
    for (const section of sections()) {
      const heading = section.querySelector("h2");
      if (heading) heading.addEventListener("click", () => section.classList.remove("studyguide-folded"));
    }
  });
})();

// The sidebar toggles (☰ for the chapters, 本页目录 for the page contents). pydata-sphinx-theme and
// sphinx-book-theme each bind only the first `.primary-toggle` / `.secondary-toggle` of the page, which is the
// hidden one in the theme's header; the buttons a reader sees do nothing. Every other toggle forwards its click
// to the bound one, which opens the dialog on a phone and folds the sidebar on a wide screen.
(() => {
  document.addEventListener("DOMContentLoaded", () => {
    for (const kind of ["primary", "secondary"]) {
      const toggles = Array.from(document.querySelectorAll(`.${kind}-toggle`));
      const bound = toggles[0];
      for (const button of toggles.slice(1)) {
        button.addEventListener("click", (event) => {
          event.preventDefault();
          event.stopImmediatePropagation();
          bound.click();
        }, true);
      }
    }
  });
})();
