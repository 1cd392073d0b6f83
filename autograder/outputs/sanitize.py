"""HTML of a student's notebook as graders and students see it, with no script of the student's.

formgrader shows a submission's markdown (a hand-graded answer) and outputs on the origin of the
server it runs in, where a script could act as the grader (on a hub, open a terminal as the course
account); nbgrader's templates render markdown with raw HTML passed through. ``nbgrader_config.py``
puts these two filters in place of nbconvert's for every page rendered from a notebook (formgrader's
submission view, the feedback pages): markdown rendered as nbconvert does, then cleaned to the
tags and attributes a notebook's text needs, with no script, event handler or ``javascript:`` link.
"""
import bleach
from jinja2 import pass_context
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

TAGS = frozenset({"a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em",
                  "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "s",
                  "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
                  "tr", "u", "ul"})
ATTRIBUTES = {"a": ["href", "title"], "img": ["src", "alt", "title", "width", "height"],
              "td": ["align", "colspan", "rowspan"], "th": ["align", "colspan", "rowspan"], "*": ["class", "id"]}
# data: for images a notebook embeds (attachments, plots)
PROTOCOLS = frozenset({"http", "https", "mailto", "data"})


def clean_html(html):
    """``html`` with only ``TAGS`` and ``ATTRIBUTES`` left (others removed, their text kept as text)."""
    html = html.decode() if isinstance(html, bytes) else str(html)
    return bleach.clean(html, tags=TAGS, attributes=ATTRIBUTES, protocols=PROTOCOLS, strip=True)


@pass_context
def markdown2html(context, source):
    """A markdown cell as nbconvert renders it (math kept for MathJax, attachments inline), cleaned."""
    attachments = context.get("cell", {}).get("attachments", {})
    html = MarkdownWithMath(renderer=IPythonRenderer(escape=False, attachments=attachments)).render(source)
    return clean_html(html)
