"""The CSV files the course writes, every cell as a spreadsheet opens it: as text, never a formula.

Names, ids, e-mail addresses, statuses and messages in them come from students. A spreadsheet runs a
cell that starts with ``=``, ``+``, ``-`` or ``@`` (``-2+3``, ``=HYPERLINK(...)``), and some read a
tab or a carriage return before one. Every CSV writer of the course is ``DictWriter`` or ``Writer``
here, which write such text after a ``'`` (the spreadsheets' mark of text); ``DictReader`` reads a
file so written back as it was.
"""

import csv

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_MARK = "'"


def cell(value):
    """``value`` as a CSV cell no spreadsheet runs: text that starts as a formula does, after a ``'``.
    A number (``int``, ``float``) stays a number, a negative one too."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return TEXT_MARK + value
    return value


def read_cell(text):
    """A cell ``cell`` wrote, as it was."""
    return text[1:] if text.startswith(TEXT_MARK) and text[1:].startswith(FORMULA_STARTS) else text


class DictWriter(csv.DictWriter):
    """``csv.DictWriter`` whose every cell goes through ``cell``, the header's too."""

    def writerow(self, rowdict):
        return super().writerow({key: cell(value) for key, value in rowdict.items()})

    def writerows(self, rowdicts):
        for rowdict in rowdicts:
            self.writerow(rowdict)


class Writer:
    """``csv.writer(handle)`` whose every cell goes through ``cell``."""

    def __init__(self, handle):
        self._writer = csv.writer(handle)

    def writerow(self, row):
        return self._writer.writerow([cell(value) for value in row])


class DictReader(csv.DictReader):
    """``csv.DictReader`` of a file ``DictWriter`` wrote: each cell as it was before ``cell``."""

    def __next__(self):
        return {key: read_cell(value) if isinstance(value, str) else value for key, value in super().__next__().items()}
