"""Sphinx configuration of every studyguide book (the tool's own; ``studyguide build`` passes it with ``-c``).

The book's words come from its language (``[tool.studyguide] language``); title, author and paths from its
config. A book may add a ``conf.py`` of its own at the project root: it runs last, over these settings, and
its ``_static/`` files are served next to (and over) the ones here.
"""

import os
from pathlib import Path

from studyguide.config import load_config
from studyguide.glyphs import MIDDOT_LATIN, font_preamble
from studyguide.notebook import MYST_EXTENSIONS
from studyguide.sphinxext.conceptindex import LATEX_MACRO as _CONCEPT_MACRO
from studyguide.sphinxext.latexrefs import VERBATIM_BREAKS as _VERBATIM_BREAKS

_ROOT = Path(os.environ.get("STUDYGUIDE_ROOT", ".")).resolve()
_HERE = Path(__file__).resolve().parent
_SG = load_config(_ROOT)
_WORDS = _SG.locale
_ZH = _WORDS.code == "zh"

extensions = [
    "myst_nb",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinx.ext.imgmath",
    "studyguide.sphinxext",
]
language = _WORDS.sphinx_language
exclude_patterns = ["_executed", "**/_executed"]
suppress_warnings: list[str] = []

# MyST and notebook execution: outputs come from the jupyter-cache that `studyguide execute` fills.
myst_enable_extensions = list(MYST_EXTENSIONS)
myst_heading_anchors = 0
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_in_temp = True
nb_merge_streams = True

# Math as SVG images in every format: the site works offline and the EPUB shows formulas.
imgmath_image_format = "svg"
imgmath_font_size = 14
imgmath_embed = True
imgmath_dvisvgm_args = ["--no-fonts", "--cache=none"]  # no glyph cache: identical output on every machine
html_math_renderer = "imgmath"

# Website
html_theme = "sphinx_book_theme"
html_static_path = [str(_HERE / "_static"), *([str(_ROOT / "_static")] if (_ROOT / "_static").is_dir() else [])]
html_favicon = str(_HERE / "_static" / "favicon.png")
html_css_files = ["studyguide.css"]
html_search_language = _WORDS.search_language
html_context = {"default_mode": "light"}  # pydata theme: a defined mode, no console error on first visit
html_last_updated_fmt = None  # no build date: two builds give the same pages
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {
    "use_download_button": False,
    "use_fullscreen_button": False,
    "home_page_in_toc": False,
    "show_navbar_depth": 1,
    "max_navbar_depth": 2,  # chapters and questions; the seven sections of each page are in the page TOC
    "toc_title": _WORDS.t("site.toc_title"),
    "path_to_docs": _SG.book_dir,
}
html_sidebars = {"**": ["navbar-logo.html", "search-button-field.html", "studyguide-downloads.html", "studyguide-sidebar-nav.html"]}
copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True

# PDF (xelatex): A4, one \part per tier. Chinese books: Noto CJK (SC forms) through ctex, Chinese headings.
_WRAP_CODE = "verbatimwrapslines=true, verbatimforcewraps=true, verbatimmaxoverfull=0, verbatimmaxunderfull=0"
_NAMES = (rf"\ctexset{{part/name={{{_WORDS.t('pdf.part_name')}}}, chapter/name={{{_WORDS.t('pdf.chapter_name')}}}, chapter/number=\arabic{{chapter}}}}"
          if _ZH else "")
latex_engine = "xelatex"
latex_use_xindy = False
latex_show_urls = "no"
latex_show_pagerefs = True  # every cross-reference gives its page (the words: sphinxext/latexrefs.py)
latex_toplevel_sectioning = "chapter"
latex_elements = {
    "papersize": "a4paper",
    "pointsize": "10pt",
    "extraclassoptions": "openany,oneside",
    "fncychap": "",
    "babel": "",
    "polyglossia": "",
    "fontenc": "",
    "fontpkg": font_preamble(_ZH),  # glyphs.py: `check` typesets the book's characters with the same set-up
    "fvset": (r"\fvset{fontsize=\small,formatcom={\clubpenalty=\studyguideverbatimclub\widowpenalty=\studyguideverbatimwidow" + (r"\xeCJKVerbAddon" + MIDDOT_LATIN if _ZH else "")
              + "}}"),  # per block, from the translator (latexrefs.VERBATIM_BREAKS)
    "sphinxsetup": f"{_WRAP_CODE}, hmargin={{2.2cm,2.2cm}}, vmargin={{2.5cm,2.5cm}}",
    "preamble": r"""
\setlength{\tymin}{4.2em}  % a table column holds at least four CJK characters on a line, not one per line
\usepackage{bookmark}
\usepackage{needspace}  % titles and short code blocks are not left at a page's foot (sphinxext/latexrefs.py)
\bookmarksetup{numbered, depth=1}
""" + _NAMES + r"""
\setcounter{secnumdepth}{-2}
\AtBeginDocument{\setcounter{tocdepth}{1}}
\setlength{\emergencystretch}{3em}  % long inline code: stretch spaces rather than run into the margin
% long inline code may break after _ (in text and headings), . , ; / and braces, so a line need not stretch
% the CJK spacing around it
\makeatletter\DeclareRobustCommand{\_}{\ifmmode\nfss@text{\textunderscore}\else\textunderscore\discretionary{}{}{}\fi}
\pdfstringdefDisableCommands{\def\_{\textunderscore}}% bookmarks keep the underscores of __init__
\protected\def\sphinxcode#1{\texttt{\let\sphinxafterbreak\@empty\sphinxbreaksattexescapedchars#1}}\makeatother
% a part opener has no header or footer: its page is shipped while plain means empty
\makeatletter\newcommand{\studyguideopenpart}[1]{\setcounter{secnumdepth}{1}\begingroup\let\ps@plain\ps@empty\part{#1}\endgroup}\makeatother
\newcommand{\studyguidepart}[1]{\studyguideopenpart{#1}}
% Chapters restart in every part, as in the website; hyperref anchors stay unique.
\counterwithin*{chapter}{part}
\renewcommand{\theHchapter}{\thepart.\arabic{chapter}}
\AtBeginDocument{\renewcommand{\contentsname}{""" + _WORDS.t("pdf.contents") + r"""}}
\renewcommand{\sphinxcrossref}[1]{#1}  % cross-references upright, like the Chinese around them
""" + _CONCEPT_MACRO + _VERBATIM_BREAKS + r"""\renewcommand{\sphinxstyleindexlettergroup}[1]{}
\renewcommand{\sphinxstyleindexlettergroupDefault}[1]{}
% A cell's output is set apart from its code in greyscale print: no background, no frame, a rule on its left,
% and a small label above it (the code keeps Sphinx's grey box).
\newenvironment{sphinxclasscell_output}{%
  \par\nobreak\vspace{-0.2\baselineskip}%
  \noindent{\sffamily\scriptsize\color[gray]{0.35}""" + _WORDS.t("epub.output") + r"""}\par\nobreak\vspace{-0.3\baselineskip}%
  \sphinxsetup{pre_background-TeXcolor={RGB}{255,255,255}, pre_border-top-width=0pt, pre_border-right-width=0pt,
    pre_border-bottom-width=0pt, pre_border-left-width=1.6pt, pre_border-TeXcolor={RGB}{110,110,110}, pre_border-radius=0pt}%
}{}
""",
    # a two-column index, ragged right: a long API name breaks after its dots and underscores (\sphinxcode above)
    "printindex": r"\bookmarksetup{startatroot}{\raggedright\printindex}",
    "makeindex": r"\makeindex",
    # the cover's page label is a word, not "1" like the first page of the text
    "maketitle": r"{\renewcommand{\thepage}{" + _WORDS.t("pdf.cover") + r"}\sphinxmaketitle}",
}
latex_additional_files: list[str] = []

# E-reader PDF (`studyguide build ereader`): the same book on a 6-inch screen's page, 90 x 120 mm, with the
# A4 edition's 10 pt type (so larger for the page) and narrow margins; the page number alone, at the foot.
# These keys replace the A4 ones in a second LaTeX run from the same doctrees (-D studyguide_latex=ereader).
studyguide_ereader_latex_elements = {
    "papersize": "",
    "geometry": r"\usepackage[paperwidth=90mm,paperheight=120mm,footskip=4mm]{geometry}",
    "printindex": r"\bookmarksetup{startatroot}{\raggedright\def\twocolumn[#1]{#1}\printindex}",  # one column: the page is narrow
    "sphinxsetup": f"{_WRAP_CODE}, hmargin={{4mm,4mm}}, vmargin={{4mm,8mm}}, marginpar=2mm",
    "preamble": latex_elements["preamble"] + r"""
\AtBeginDocument{\sloppy}  % a narrow measure: loose lines rather than lines that run into the margin
\makeatletter\g@addto@macro\py@HeaderFamily{\raggedright}\makeatother  % titles ragged right: no wide gaps on a narrow page
\makeatletter\renewcommand*{\@pnumwidth}{2.4em}\renewcommand*{\@tocrmarg}{3.4em}\makeatother  % 4-digit page numbers
\renewcommand{\sphinxstyleindexentry}[1]{\sphinxcode{\sphinxupquote{#1}}}
\fancypagestyle{normal}{\fancyhf{}\fancyfoot[C]{\footnotesize\thepage}\renewcommand{\headrulewidth}{0pt}\renewcommand{\footrulewidth}{0pt}}
\fancypagestyle{plain}{\fancyhf{}\fancyfoot[C]{\footnotesize\thepage}\renewcommand{\headrulewidth}{0pt}\renewcommand{\footrulewidth}{0pt}}
""",
}

# EPUB: the extension's e-reader theme (one lean stylesheet, greyscale-safe highlighting); only the
# static files the pages use are packaged (studyguide/sphinxext/epub.py).
epub_theme = "studyguide-epub"
epub_css_files: list[str] = []
epub_show_urls = "no"
epub_exclude_files = [".buildinfo", ".buildinfo.bak"]
epub_use_index = True
epub_tocdepth = 3
epub_math_renderer = "imgmath"

# The book's own settings, last.
if (_ROOT / "conf.py").is_file():
    exec(compile((_ROOT / "conf.py").read_text(encoding="utf-8"), str(_ROOT / "conf.py"), "exec"))
