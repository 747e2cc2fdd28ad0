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
