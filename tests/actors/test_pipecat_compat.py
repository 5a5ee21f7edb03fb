"""The Pipecat private members we depend on (voicecoach.actors.pipecat_compat.SEAMS) are still
there, as we use them; and no file of ours but pipecat_compat.py names one.

A Pipecat upgrade that renames, drops or re-signs one of them fails here, by name."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import pkgutil
import re
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeGuard

import pytest
from pipecat.audio.vad.silero import SileroOnnxModel, SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADAnalyzer
from pipecat.services.settings import STTSettings, TTSSettings
from pipecat.services.stt_service import SegmentedSTTService, STTService
from pipecat.services.tts_service import TTSService
from pipecat.transcriptions.language import Language

from voicecoach.actors import pipecat_compat
from voicecoach.actors.pipecat_compat import SEAMS, Seam

ROOT = Path(__file__).resolve().parents[2]
RATE = 16000


def _seam_id(seam: Seam) -> str:
    return f"{seam.owner.__name__}.{seam.name}"


def _of_kind(*kinds: str) -> list[Any]:
    return [pytest.param(s, id=_seam_id(s)) for s in SEAMS if s.kind in kinds]


def _set_on_self(fn: Callable[..., Any]) -> set[str]:
    """The attributes `fn` sets on `self` (`self.x = `, `self.x: T = `, `self.x += `, tuples too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(fn)))):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {t.attr for t in ast.walk(target) if _is_self_attribute(t)}
    return names


def _is_self_attribute(node: ast.AST) -> TypeGuard[ast.Attribute]:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _own(owner: type, name: str) -> Any:
    """`name` as `owner` itself defines it (not inherited: the seam names where it lives)."""
    assert name in vars(owner), f"{owner.__module__}.{owner.__qualname__} no longer defines {name}"
    return vars(owner)[name]


def _params(fn: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(inspect.signature(fn).parameters)


def _resolve(path: str) -> type:
    module, _, qualname = path.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    assert isinstance(found, type)
    return found


# --- live instances, for the attributes that are set on them ---------------------------------


def _silero() -> SileroVADAnalyzer:
    analyzer = SileroVADAnalyzer(sample_rate=RATE)
    analyzer.set_sample_rate(RATE)  # set_params: the VAD's state machine
    return analyzer


def _whisper() -> STTService:
    from voicecoach.pipelines.speech.voice import EmbeddedWhisperSTTService

    return EmbeddedWhisperSTTService(None, warm=False, settings=STTSettings(model=None, language=Language.EN))


def _piper() -> TTSService:
    from voicecoach.pipelines.speech.voice import EmbeddedPiperTTSService

    settings = TTSSettings(model=None, voice="v", language=None)
    return EmbeddedPiperTTSService(Path("voice.onnx"), warm=False, voice=object(), settings=settings)


LIVE: dict[type, Callable[[], Any]] = {
    VADAnalyzer: _silero,
    SegmentedSTTService: _whisper,
    STTService: _whisper,
    TTSService: _piper,
}


# --- each seam still exists ------------------------------------------------------------------


def test_every_seam_is_of_a_known_kind_and_says_why() -> None:
    for seam in SEAMS:
        assert seam.kind in ("attribute", "method", "override", "init"), seam
        assert seam.owner.__module__.startswith("pipecat."), seam
        assert seam.why, seam
        assert (seam.kind == "attribute") == bool(seam.set_in) == (seam.holds is not None), seam
        assert (seam.kind == "override") == bool(seam.by), seam
        assert (seam.kind == "init") == bool(seam.names) == (seam.name == "__init__"), seam


@pytest.mark.parametrize("seam", _of_kind("attribute"))
async def test_the_attribute_is_still_set_where_we_say_and_holds_what_we_use(seam: Seam) -> None:
    setter = _own(seam.owner, seam.set_in)
    assert seam.name in _set_on_self(setter), (
        f"pipecat's {seam.owner.__qualname__}.{seam.set_in} no longer sets {seam.name}"
    )
    instance = LIVE[seam.owner]()
    assert isinstance(instance, seam.owner)
    value = getattr(instance, seam.name)
    assert seam.holds is not None and isinstance(value, seam.holds), (seam.name, type(value))


@pytest.mark.parametrize("seam", _of_kind("method", "override"))
def test_the_method_still_exists_with_the_parameters_we_pass(seam: Seam) -> None:
    method = _own(seam.owner, seam.name)
    assert callable(method)
    assert _params(method) == seam.params, f"pipecat's {_seam_id(seam)} now takes {_params(method)}"


@pytest.mark.parametrize("seam", _of_kind("override"))
def test_the_base_still_calls_the_method_we_override(seam: Seam) -> None:
    ours = _resolve(seam.by)
    assert issubclass(ours, seam.owner)
    override = _own(ours, seam.name)
    assert _params(override) == seam.params
    base = _own(seam.owner, seam.name)
    assert inspect.iscoroutinefunction(override) == inspect.iscoroutinefunction(base)
    assert f"self.{seam.name}(" in inspect.getsource(seam.owner), (
        f"pipecat's {seam.owner.__qualname__} no longer calls {seam.name}: our override is dead"
    )


@pytest.mark.parametrize("seam", _of_kind("init"))
def test_the_constructor_we_replay_still_takes_and_sets_what_we_copy(seam: Seam) -> None:
    init = _own(seam.owner, "__init__")
    assert _params(init) == seam.params, f"pipecat's {_seam_id(seam)} now takes {_params(init)}"
    assert _set_on_self(init) == set(seam.names), (
        f"pipecat's {_seam_id(seam)} now sets {sorted(_set_on_self(init))}, we copy {sorted(seam.names)}"
    )


def test_the_silero_analyzer_still_sits_right_on_vad_analyzer() -> None:
    """init_shared_silero_analyzer calls VADAnalyzer.__init__ where SileroVADAnalyzer calls super()."""
    assert SileroVADAnalyzer.__bases__ == (VADAnalyzer,)
    assert "super().__init__(sample_rate=sample_rate, params=params)" in inspect.getsource(
        SileroVADAnalyzer.__init__
    )


def test_the_shared_silero_analyzer_has_the_stock_ones_attributes() -> None:
    """What the compat helpers build is what Pipecat's own constructors build, attribute for
    attribute, and the shared model holds the shared session."""
    from voicecoach.pipelines.speech.voice import SharedSileroVADAnalyzer, silero_session

    session = silero_session()
    shared = SharedSileroVADAnalyzer(session, sample_rate=RATE)
    stock = SileroVADAnalyzer(sample_rate=RATE)
    assert set(vars(shared)) == set(vars(stock))
    model = pipecat_compat.silero_model_around(session)
    path = str(Path(inspect.getfile(SileroVADAnalyzer)).parent / "data" / "silero_vad.onnx")
    assert set(vars(model)) == set(vars(SileroOnnxModel(path)))
    assert model.session is session and vars(shared)["_model"].session is session


# --- and nothing but pipecat_compat.py names one ---------------------------------------------

COMPAT = ROOT / "actors" / "pipecat_compat.py"
# Our own attributes that share a name with a seam: (file, name) -> whose it is.
OWN_NAMES = {
    ("pipelines/speech/whisper.py", "_model"): "_Abandonable's wrapped CTranslate2 model",
    ("tests/pipelines/test_whisper_window.py", "_model"): "_Abandonable's wrapped CTranslate2 model",
}


def _our_files() -> Iterator[Path]:
    """The .py files of voicecoach/, actors/, pipelines/ and tests/ (symlinks not followed:
    voicecoach/actors and voicecoach/pipelines are actors/ and pipelines/)."""
    for top in ("voicecoach", "actors", "pipelines", "tests"):
        for folder, dirs, files in os.walk(ROOT / top):
            dirs[:] = [d for d in dirs if d not in ("node_modules", "__pycache__")]
            yield from (Path(folder) / f for f in files if f.endswith(".py"))


PRIVATE = sorted({s.name for s in SEAMS if s.name.startswith("_") and not s.name.startswith("__")})


def _mentions(text: str, names: list[str]) -> list[tuple[int, str]]:
    """(line, name) for each of `names` that `text` mentions as a whole word (an attribute, a
    call, a def or a string alike), and each `.__new__(`: building a class without its __init__."""
    found = []
    for pattern, name in [*((rf"\b{re.escape(n)}\b", n) for n in names), (r"\.__new__\(", "__new__")]:
        found += [(text.count("\n", 0, m.start()) + 1, name) for m in re.finditer(pattern, text)]
    return sorted(found)


def test_no_file_but_pipecat_compat_names_a_pipecat_private_member() -> None:
    overridden = {(s.name, _resolve(s.by).__module__) for s in SEAMS if s.kind == "override"}
    found = []
    for path in _our_files():
        if path in (COMPAT, Path(__file__)):
            continue
        rel = path.relative_to(ROOT).as_posix()
        module = "voicecoach." + rel.removesuffix(".py").replace("/", ".")
        names = [n for n in PRIVATE if (rel, n) not in OWN_NAMES and (n, module) not in overridden]
        text = path.read_text(encoding="utf-8")
        found += [f"{rel}:{line}: {name}" for line, name in _mentions(text, names)]
    assert not found, "Pipecat private members outside voicecoach.actors.pipecat_compat:\n" + "\n".join(found)


def test_the_search_finds_the_private_members_as_they_were_used() -> None:
    """Not vacuous: the reach-ins this module replaced are found, and longer names are not."""
    before = (
        "state = self._analyzer._vad_state\n"
        "model = SileroOnnxModel.__new__(SileroOnnxModel)\n"
        "pcm = bytes(self._audio_buffer) + self._trailing_silence()\n"
        "keepalive_s = self._stop_frame_timeout_s / 3\n"
        "engines.whisper = whisper_model(speech)\n"
    )
    assert _mentions(before, PRIVATE) == [
        (1, "_vad_state"), (2, "__new__"), (3, "_audio_buffer"), (3, "_trailing_silence"),
        (4, "_stop_frame_timeout_s"),
    ]  # fmt: skip


# --- nor does a subclass of ours reach Pipecat's private state by accident ------------------


def _pipecat_subclasses() -> Iterator[type]:
    import voicecoach.actors
    import voicecoach.pipelines

    modules = ["voicecoach.app.client"]
    for package in (voicecoach.actors, voicecoach.pipelines):  # their sub-packages too (pipelines.speech)
        walk = pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}.")
        modules += [m.name for m in walk if not m.ispkg]
    for name in modules:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == name
                and any(c.__module__.startswith("pipecat.") for c in value.__mro__)
            ):
                yield value


def _private(names: set[str]) -> set[str]:
    return {n for n in names if n.startswith("_") and not n.startswith("__") and not n.startswith("_abc_")}


def _theirs(cls: type) -> set[str]:
    """The private names a Pipecat class defines, or uses on self."""
    try:
        used = set(re.findall(r"\bself\.(_\w+)", inspect.getsource(cls)))
    except (OSError, TypeError):  # no source (a generated class)
        used = set()
    return _private(set(vars(cls)) | used)


def _ours(cls: type) -> set[str]:
    """The private names our class's own source defines (methods, class attributes), or uses on
    self. From the source, not `vars`: Pipecat marks subclasses with attributes of its own (a
    renamed dataclass field's `_<Base>_takes_<old>`) the first time one is built."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0]
    assert isinstance(body, ast.ClassDef)
    names = {n.attr for n in ast.walk(body) if _is_self_attribute(n)}
    for node in body.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return _private(names)


def test_our_pipecat_subclasses_share_no_private_name_with_pipecat_but_the_listed_overrides() -> None:
    """A private name of ours that Pipecat also uses on the same object either reaches into its
    state (a seam: route it through pipecat_compat) or clobbers it (rename ours). Checked
    against the installed Pipecat, so a base class that grows one of our names fails here."""
    allowed = {(s.by, s.name) for s in SEAMS if s.kind == "override"}
    clashes = []
    classes = list(_pipecat_subclasses())
    assert any(c.__name__ == "EmbeddedWhisperSTTService" for c in classes)
    for cls in classes:
        theirs = set().union(*(_theirs(c) for c in cls.__mro__ if c.__module__.startswith("pipecat.")))
        for name in sorted(_ours(cls) & theirs):
            if (f"{cls.__module__}:{cls.__qualname__}", name) not in allowed:
                clashes.append(f"{cls.__module__}.{cls.__qualname__}: {name}")
    assert not clashes, "private names shared with a Pipecat base class:\n" + "\n".join(clashes)
