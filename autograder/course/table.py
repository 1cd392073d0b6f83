"""Text tables for the terminal: every command that prints rows prints them through ``format_table``."""


def format_table(header, rows, right=()):
    """``header`` and ``rows`` (sequences of strings) as aligned columns, two spaces apart; the columns
    whose indexes are in ``right`` (numbers) are aligned right. Trailing spaces are cut."""
    lines = [tuple(header)] + [tuple(row) for row in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.rjust(width) if i in right else cell.ljust(width) for i, (cell, width) in enumerate(zip(line, widths))
        ).rstrip()
        for line in lines
    )
