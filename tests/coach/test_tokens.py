"""Per-session tokens: a token opens its own session, until it expires, under its own key."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import jwt
import pytest

from voicecoach.coach.tokens import AUDIENCE, TokenError, mint, parse_ttl, verify

ROOT = Path(__file__).resolve().parents[2]
KEY = "k" * 32


def test_a_token_opens_its_session_until_it_expires() -> None:
    token = mint(KEY, "player-1", ttl_s=60)
    assert verify(KEY, token) == "player-1"
    with pytest.raises(TokenError, match="expired"):
        verify(KEY, mint(KEY, "player-1", ttl_s=60, now=time.time() - 3600))
    with pytest.raises(TokenError, match="invalid token"):
        verify("x" * 32, token)  # another key
    with pytest.raises(TokenError, match="invalid token"):
        verify(KEY, token[:-2] + ("AA" if not token.endswith("AA") else "BB"))  # tampered


def test_what_a_backend_mints_with_plain_pyjwt_is_verified_and_other_audiences_are_not() -> None:
    claims = {"sid": "p2", "aud": AUDIENCE, "exp": int(time.time()) + 60}
    assert verify(KEY, jwt.encode(claims, KEY, algorithm="HS256")) == "p2"
    with pytest.raises(TokenError, match="aud"):
        verify(KEY, jwt.encode({**claims, "aud": "another-service"}, KEY, algorithm="HS256"))
    with pytest.raises(TokenError, match="'exp'"):
        verify(KEY, jwt.encode({"sid": "p2", "aud": AUDIENCE}, KEY, algorithm="HS256"))
    with pytest.raises(TokenError, match="invalid token"):  # alg none: no signature at all
        verify(KEY, jwt.encode(claims, None, algorithm="none"))


def test_a_short_key_and_a_bad_ttl_are_refused() -> None:
    with pytest.raises(TokenError, match="at least 32 bytes"):
        mint("short", "p", 60)
    assert parse_ttl("1h") == 3600 and parse_ttl("30m") == 1800 and parse_ttl("90") == 90
    with pytest.raises(TokenError, match="bad duration"):
        parse_ttl("soon")


def test_voicecoach_token_mint_prints_a_token_for_the_session() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VOICECOACH_SIGNING_KEY": KEY}
    command = [sys.executable, "-m", "voicecoach.app.cli", "token", "mint", "--session", "S", "--ttl", "1h"]
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=True).stdout
    token = out.strip()
    assert verify(KEY, token) == "S"
    exp = jwt.decode(token, KEY, algorithms=["HS256"], audience=AUDIENCE)["exp"]
    assert 3500 < exp - time.time() <= 3600
    del env["VOICECOACH_SIGNING_KEY"]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "VOICECOACH_SIGNING_KEY" in result.stderr
