"""--help says each option's default (issue 30): `voicecoach ...` and the benches' own parsers."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from voicecoach.app.cli import build_parser
from voicecoach.core.console import DefaultsHelpFormatter


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


def test_every_option_with_a_default_shows_it() -> None:
    """Each option whose default is a value (not None, False or empty) names it in --help, by the
    formatter's "(default: X)" or by its own words; flags and None defaults say nothing."""
    checked = 0
    for parser in parsers(build_parser()):
        assert parser.formatter_class is DefaultsHelpFormatter, parser.prog
        text = "".join(parser.format_help().split())  # argparse wraps long words too
        for action in parser._actions:
            default = action.default
            if not action.option_strings or action.nargs == 0 or action.help in (None, argparse.SUPPRESS):
                continue
            if default is None or default is False or default in ("", [], ()):
                assert "(default: None)" not in text and "(default: False)" not in text, parser.prog
                continue
            help_ = action.help or ""
            shown = "".join(f"{help_} (default: {default})".split())
            assert shown in text or "default" in help_.lower(), (
                parser.prog,
                action.option_strings,
            )
            checked += 1
    assert checked > 40


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["serve"], "TCP port to listen on (default: 8765)"),
        (["chat"], "session id; an existing one is resumed (default: chat)"),
        (["bench", "latency"], "artificial game-server latency (default: 150.0)"),
    ],
)
def test_help_shows_defaults(argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--help"])
    assert expected in " ".join(capsys.readouterr().out.split())


def test_a_bench_with_its_own_parser_shows_defaults_too(capsys: pytest.CaptureFixture[str]) -> None:
    from voicecoach.bench.prior import bench_main

    with pytest.raises(SystemExit):
        bench_main(["--help"], prog="voicecoach bench prior")
    assert "(default: pet_arena)" in capsys.readouterr().out


def test_building_the_command_line_loads_no_pipecat() -> None:
    """Pipecat logs a banner when imported: before `chat` or `serve` has set its log level, that
    line would interleave with their output (voicecoach client's module imports Pipecat)."""
    import subprocess
    import sys

    code = "import sys, voicecoach.app.cli as cli; cli.build_parser(); print('pipecat' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


# The commands that finish in a second or two on 2 cores (measured): the others say their run time.
QUICK = {"demo", "token", "token mint", "pack", "pack new", "bench guard"}


def commands(
    parser: argparse.ArgumentParser, path: str = ""
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{path} {name}".strip(), sub
                yield from commands(sub, f"{path} {name}".strip())


def command_help(path: str, parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]) -> str:
    """What `voicecoach PATH --help` prints: the benches with their own parser print theirs."""
    from voicecoach.app.cli import main

    if parser.add_help:
        return parser.format_help()
    with pytest.raises(SystemExit):
        main([*path.split(), "--help"])
    return capsys.readouterr().out


def test_every_command_that_takes_more_than_a_few_seconds_says_how_long(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 30: `--help` says how long a command takes on this kind of machine (2 cores), at the top of
    its own help and in its parent's list of commands; a new command is quick (QUICK) or says it."""
    from voicecoach.app.cli import RUN_TIMES

    root = build_parser()
    listed = {path: parent for path, parent in commands(root)}
    listed[""] = root
    said = []
    for path, parser in commands(root):
        if path in QUICK:
            continue
        text = " ".join(command_help(path, parser, capsys).split())
        assert "Run time on 2 cores: " in text, f"voicecoach {path} --help says no run time"
        parent = listed[path.rpartition(" ")[0]]
        assert RUN_TIMES[path][0] in " ".join(parent.format_help().split()), path
        said.append(path)
    for path in ("serve", "chat", "client", "replay", "bench latency", "bench quality", "bench dialogue"):
        assert path in said


def test_prior_training_says_how_long(capsys: pytest.CaptureFixture[str]) -> None:
    from voicecoach.bench.prior import main

    for command in ("train", "confusions"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "Run time on 2 cores: ~" in " ".join(capsys.readouterr().out.split()), command
