"""check-tests' tables: the checks' figures per function, and the blind catalogue's next to the tuned one."""

from autograder.checktests.blind import figures
from autograder.course.table import format_table


def format_check_table(rows):
    """Return the rows as a text table followed by one line per problem."""
    header = (
        "notebook",
        "function",
        "seeds passed",
        "mutants killed",
        "mistakes named",
        "alternatives passed",
        "other tests pass without it or with it wrong",
    )
    text = [
        format_table(
            header,
            [
                (
                    r.notebook,
                    r.function,
                    f"{r.seeds}/{r.num_seeds}",
                    f"{r.killed}/{r.num_mutants}",
                    _share(r.diagnosed, r.num_mutants),
                    f"{r.passed}/{r.num_alternatives}",
                    f"{r.independent}/{r.num_others}",
                )
                for r in rows
            ],
        )
    ]
    diagnosed, mutants = sum(r.diagnosed for r in rows), sum(r.num_mutants for r in rows)
    text.append(f"mistakes named: {_share(diagnosed, mutants)} of the mutants")
    kit = [r.kit for r in rows if r.kit]
    if kit:
        text.append(
            f"bdl's callables tried in the graded functions' places: {sum(n for n, _ in kit)} "
            f"({sum(seconds for _, seconds in kit):.0f} s)"
        )
    text += [f"PROBLEM {r.notebook}/{r.function}: {problem}" for r in rows for problem in r.problems]
    return "\n".join(text)


def format_blind(rows):
    """The blind catalogue's figures next to the tuned one, and each blind answer's outcome."""
    measured = [r for r in rows if r.blind]
    if not measured:
        return ""
    header = ("notebook", "function", "blind answers", "failing", "hinted", "hinted right")
    text = [
        format_table(
            header,
            [
                (
                    r.notebook,
                    r.function,
                    str(r.blind["answers"]),
                    str(r.blind["failing"]),
                    str(r.blind["hinted"]),
                    str(r.blind["right"]),
                )
                for r in measured
            ],
        )
    ]
    failing, hinted, right = figures(rows)
    text.append(
        f"blind catalogue: {_share(hinted, failing)} of the failing answers hinted (recall), "
        f"{_share(right, hinted)} of the hints right (precision)"
    )
    if any(r.num_mutants for r in rows):  # not with --blind-only, which runs no mutant
        diagnosed, mutants = sum(r.diagnosed for r in rows), sum(r.num_mutants for r in rows)
        text.append(f"tuned catalogue: {_share(diagnosed, mutants)} of the mutants named")
    text += [f"  {line}" for r in measured for line in r.blind["lines"]]
    return "\n".join(text)


def _share(count, total):
    return f"{count}/{total} ({count / total:.0%})" if total else "0/0"
