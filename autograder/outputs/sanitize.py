"""HTML of a student's notebook as graders and students see it: the student's markup as data.

formgrader shows a submission's markdown (a hand-graded answer) and outputs on the origin of the
server it runs in, where a script could act as the grader (on a hub, open a terminal as the course
account); nbgrader's templates render markdown with raw HTML passed through. ``nbgrader_config.py``
puts these two filters in place of nbconvert's for every page rendered from a notebook (formgrader's
submission view, the feedback pages), and ``NoFileLinks`` before them: markdown rendered as nbconvert
does, then cleaned to the tags and attributes a notebook's text needs (``clean_html``).
"""

import re
from urllib.parse import urlsplit

import bleach
from jinja2 import pass_context
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import Preprocessor
from pygments.token import STANDARD_TYPES

TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "code",
        "dd",
        "del",
        "details",
        "div",
        "dl",
        "dt",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "kbd",
        "li",
        "ol",
        "p",
        "pre",
        "s",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
    }
)
ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
}
# data: for images a notebook embeds (attachments, plots)
PROTOCOLS = frozenset({"http", "https", "mailto", "data"})
# The classes of code that nbconvert highlights with pygments: a token's ("k", "nb", ...), the block's.
CODE_CLASSES = frozenset(STANDARD_TYPES.values()) - {""} | {"highlight"}
CODE_BLOCK = re.compile(r"hl-[a-z0-9+_-]+")


def _allowed(tag, name, value):
    """Whether attribute ``name="value"`` of ``tag`` may stay (``ATTRIBUTES``, and the rules of
    ``clean_html``)."""
    if name == "class":
        return all(token in CODE_CLASSES or CODE_BLOCK.fullmatch(token) for token in value.split())
    if name not in ATTRIBUTES.get(tag, ()):
        return False
    if tag == "img" and name == "src":
        return value.strip().lower().startswith("data:image/")
    if tag == "a" and name == "href":
        address = urlsplit(value.strip())
        return address.scheme.lower() == "mailto" or (
            address.scheme.lower() in ("http", "https") and bool(address.netloc)
        )
    return True


def clean_html(html):
    """``html`` with only ``TAGS`` and the attributes ``_allowed`` keeps (others removed, their text
    kept as text), so that it holds

    * no script, event handler or ``javascript:`` link;
    * no ``id``, ``name`` or ``class`` but highlighted code's: formgrader binds each score to the first
      element with the test's id inside a ``.nbgrader_cell``, and its "full credit" button by class
      (``formgrade.js``), so a student's element carrying them would take the grader's clicks;
    * nothing that loads an address by itself: images only from the notebook's own data
      (``data:image/``), links only to a whole address (``https://...``), never one of the server's
      own pages, which the grader's browser would request with the grader's login.
    """
    html = html.decode() if isinstance(html, bytes) else str(html)
    return bleach.clean(html, tags=TAGS, attributes=_allowed, protocols=PROTOCOLS, strip=True)


@pass_context
def markdown2html(context, source):
    """A markdown cell as nbconvert renders it (math kept for MathJax, attachments inline), cleaned."""
    attachments = context.get("cell", {}).get("attachments", {})
    html = MarkdownWithMath(renderer=IPythonRenderer(escape=False, attachments=attachments)).render(source)
    return clean_html(html)


class NoFileLinks(Preprocessor):
    """Every output drawn from its own data: nbconvert's templates write an ``<img src>`` of the file
    an output's metadata names (``filenames``), which in a submission is any address
    of the grader's server, requested with the grader's login."""

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            output.get("metadata", {}).pop("filenames", None)
        return cell, resources
