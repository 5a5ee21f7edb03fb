"""Session tokens: a game's backend mints one per player session, every worker verifies it.

A token is a JWT (HS256, RFC 7519) signed with a key the backend and the workers share
(`VOICECOACH_SIGNING_KEY`); any language's JWT library mints one. It carries the session it opens
(`sid`), an expiry (`exp`) and an audience (`aud`: "voicecoach"), and opens that session only: a
player who learns another's session id cannot open it without that session's token, and a
token for session A opens nothing else. Workers keep no token list: a restart or another worker
verifies the same token.

    from voicecoach.coach.tokens import mint
    token = mint(key, "player-42", ttl_s=3600)      # the game's backend, per player session

`voicecoach token mint --session S --ttl 1h` mints one for development.
"""

from __future__ import annotations

import re
import time
from typing import Any

import jwt

SIGNING_KEY_ENV = "VOICECOACH_SIGNING_KEY"
AUDIENCE = "voicecoach"
ALGORITHM = "HS256"
# HS256 with a shorter key is guessable offline from one token (RFC 7518 §3.2 asks for >= 256 bits).
MIN_KEY_BYTES = 32
# Clocks of the backend and the workers may differ by this much.
LEEWAY_S = 30.0
_TTL = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhd]?)$")
_UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


class TokenError(ValueError):
    """A token that opens nothing; the message is what the client is told (no secret in it)."""


def check_key(key: str) -> str:
    """`key`, or TokenError saying why it is too weak to sign with."""
    if len(key.encode("utf-8")) < MIN_KEY_BYTES:
        raise TokenError(
            f"{SIGNING_KEY_ENV} must be at least {MIN_KEY_BYTES} bytes "
            "(e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return key


def parse_ttl(text: str) -> float:
    """'90s', '30m', '1h', '7d' or a number of seconds."""
    match = _TTL.match(text.strip().lower())
    if match is None or float(match.group(1)) <= 0:
        raise TokenError(f"bad duration {text!r}: a positive number with s, m, h or d (1h)")
    return float(match.group(1)) * _UNIT_S[match.group(2)]


def mint(key: str, session_id: str, ttl_s: float, *, now: float | None = None) -> str:
    """A token that opens `session_id` for `ttl_s` seconds."""
    issued = int(time.time() if now is None else now)
    claims = {"sid": session_id, "aud": AUDIENCE, "iat": issued, "exp": issued + max(1, int(ttl_s))}
    return jwt.encode(claims, check_key(key), algorithm=ALGORITHM)


def looks_signed(token: str) -> bool:
    """A JWT (three base64url parts), as opposed to a server's static token."""
    return token.count(".") == 2


def verify(key: str, token: str) -> str:
    """The session id `token` opens; TokenError (the reason) if it opens nothing."""
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            audience=AUDIENCE,
            leeway=LEEWAY_S,
            options={"require": ["exp", "aud", "sid"]},
        )
    except jwt.ExpiredSignatureError:
        raise TokenError("the token has expired") from None
    except jwt.InvalidAudienceError:
        raise TokenError(f"the token is not for {AUDIENCE} (aud)") from None
    except jwt.MissingRequiredClaimError as err:
        raise TokenError(f"the token has no {err.claim!r} claim") from None
    except jwt.InvalidTokenError:
        raise TokenError("invalid token") from None
    session = claims["sid"]
    if not isinstance(session, str) or not session:
        raise TokenError("the token's 'sid' is not a session id")
    return session
