"""`EncryptedSerializer`: another serializer's output, encrypted by a cipher.

Served as `langgraph.checkpoint.serde.encrypted`. The stored type says both encodings,
`"<inner type>+<cipher name>"` (e.g. `msgpack+aes`); a type without `+` is read as
unencrypted, so data written before encryption was turned on still loads.
`from_pycryptodome_aes` needs the optional `pycryptodome` package (imported only there).
"""
from __future__ import annotations

import importlib
import os
from typing import Any

from .serde_jsonplus import JsonPlusSerializer
from .serde_protocol import CipherProtocol, SerializerProtocol

__all__ = ["EncryptedSerializer"]


class EncryptedSerializer:
    """Encrypts what `serde` dumps with `cipher`; decrypts before `serde` loads."""

    def __init__(self, cipher: CipherProtocol, serde: SerializerProtocol | None = None) -> None:
        self.cipher = cipher
        self.serde: Any = serde if serde is not None else JsonPlusSerializer()

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        kind, data = self.serde.dumps_typed(obj)
        name, ciphertext = self.cipher.encrypt(data)
        return f"{kind}+{name}", ciphertext

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, blob = data
        if "+" not in kind:
            return self.serde.loads_typed(data)
        inner, name = kind.split("+", 1)
        return self.serde.loads_typed((inner, self.cipher.decrypt(name, blob)))

    @classmethod
    def from_pycryptodome_aes(cls, serde: SerializerProtocol | None = None, **kwargs: Any) -> EncryptedSerializer:
        """AES in EAX mode; the key is `key=` or the `LANGGRAPH_AES_KEY` environment variable."""
        return cls(_AesCipher(**kwargs), serde)


class _AesCipher:
    def __init__(self, key: bytes | str | None = None, **kwargs: Any) -> None:
        try:
            AES: Any = importlib.import_module("Crypto.Cipher.AES")
        except ImportError:
            raise ImportError(
                "EncryptedSerializer.from_pycryptodome_aes needs pycryptodome: pip install pycryptodome"
            ) from None
        key = key if key is not None else os.environ.get("LANGGRAPH_AES_KEY")
        if key is None:
            raise ValueError("EncryptedSerializer.from_pycryptodome_aes: give key= or set LANGGRAPH_AES_KEY")
        self._key = key.encode() if isinstance(key, str) else key
        if len(self._key) not in (16, 24, 32):
            raise ValueError(f"AES key must be 16, 24 or 32 bytes long, not {len(self._key)}")
        self._aes = AES
        self._kwargs = {"mode": AES.MODE_EAX, **kwargs}

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        c = self._aes.new(self._key, **self._kwargs)
        ciphertext, tag = c.encrypt_and_digest(plaintext)
        return "aes", c.nonce + tag + ciphertext

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        if ciphername != "aes":
            raise ValueError(f"EncryptedSerializer: cipher {ciphername!r} is not this one ('aes')")
        nonce, tag, body = ciphertext[:16], ciphertext[16:32], ciphertext[32:]
        c = self._aes.new(self._key, nonce=nonce, **self._kwargs)
        return bytes(c.decrypt_and_verify(body, tag))
