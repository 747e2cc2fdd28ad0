"""One xelatex pass fewer per PDF: the pass that first reads the page references lays the pages out as the pass
before it did, so latexmk finds nothing changed and stops after two passes instead of three.

A clean build's first pass knows no page yet. Four things it wrote differed in the second pass although the
book's text did not change, and each made latexmk run a third, full pass (about 40 s for the A4 book):

- an unknown ``\\pageref*`` printed a bold ``??``, narrower than the page number it becomes, so lines and pages
  could break elsewhere once the numbers were known; here it prints the number of the page it stands on, as a
  link like the real one (same characters, same nodes, same width but where the target's number has another
  count of digits). An unknown ``\\hyperref`` target is a link to this page as well: printed as bare text,
  it let lines break differently from the linked text of the next pass (on the real book a page first moved at
  page 236; with the link nothing moved). A reference still unknown after the last pass fails the build
  (``latex.finish``), so these stand-ins never reach a reader;
- the index was missing from the first pass (makeindex runs after it), and so was its line in the contents,
  which the second pass added; here a first pass without the ``.ind`` prints an empty index, whose heading and
  contents line are those of the real one; but not in a book without index entries (the quick review), whose
  empty ``.ind`` prints nothing (the stand-in had cost it a third pass);
- hyperref's PDF page labels (i, ii, ... then 1, 2, ...) were written to the .aux at the absolute page where
  the numbering restarts, which moves when the table of contents fills in; here they are collected while
  the pages are shipped and put into the PDF by the same pass (a later ``pdf:docview`` replaces an earlier
  one), so the .aux no longer holds them;
- LaTeX's count of pages (``\\@abspage@last``) grows with the table of contents and the index; latexmk is told
  to ignore that line (``latex.LATEXMK_RC``). Only the ``shipout/lastpage`` hook reads it, and the book has
  nothing there; should a package add something, the count is written again under a name latexmk does not
  ignore, so it reruns as before.

latexmk still decides: if the second pass changes any reference, the .toc or the index, it runs a third.
"""

from __future__ import annotations

PREAMBLE = r"""
% Two xelatex passes rather than three on a clean build (sphinxext/latexpasses.py)
\makeatletter
\let\studyguide@setref\real@setref
\def\real@setref#1#2#3{% an unknown page reference: this page's number, linked, until the next pass
  \ifx#1\relax\ifx#2\@secondoffive
    \protect\G@refundefinedtrue\protect\hyper@@link{}{page.\thepage}{\thepage}%
    \@latex@warning{Reference `#3' on page \thepage\space undefined}%
  \else\studyguide@setref#1#2{#3}\fi
  \else\studyguide@setref#1#2{#3}\fi}
\def\hyperrefundefinedlink#1{\hyper@@link{}{page.\thepage}{#1}}% an unknown \hyperref target: a link all the same
\newif\ifstudyguide@indexed  % an index entry was written in this pass (a book without any prints no index)
\AtBeginDocument{\let\studyguide@printindex\printindex
  \let\studyguide@wrindex\@wrindex\def\@wrindex{\global\studyguide@indexedtrue\studyguide@wrindex}%
  \def\printindex{\IfFileExists{\jobname.ind}{\studyguide@printindex}{\ifstudyguide@indexed\begin{sphinxtheindex}\end{sphinxtheindex}\fi}}}
\gdef\studyguide@pagelabels{}
\newif\ifstudyguide@newlabel
\def\HyPL@StorePageLabel#1{% page labels of this pass, not of the .aux of the last one
  \xdef\studyguide@pagelabels{\studyguide@pagelabels\the\Hy@abspage<<#1>>}\global\studyguide@newlabeltrue}
\g@addto@macro\Hy@EveryPageBoxHook{%
  \ifstudyguide@newlabel\global\studyguide@newlabelfalse
    \special{pdf:docview <</PageLabels<</Nums[\studyguide@pagelabels]>>>>}\fi}
\def\HyPL@Labels{this pass}\let\HyPL@SetPageLabels\relax
\AddToHook{enddocument/afterlastpage}{\IfHookEmptyTF{shipout/lastpage}{}{%
  \immediate\write\@auxout{\string\providecommand\string\studyguidepages{\the\ReadonlyShipoutCounter}}}}
\makeatother
"""
