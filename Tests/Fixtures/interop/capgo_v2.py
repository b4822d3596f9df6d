#!/usr/bin/env python3
"""An independent implementation of the Capgo v2 bundle format, for the interoperability test.

It shares no code with qualify. The `cryptography` package parses the PKCS#1 keys and runs
AES-128-CBC; the RSA "private-key encryption" Capgo uses (PKCS#1 v1.5 type-1 padding, no
DigestInfo — Node's crypto.privateEncrypt) is not in its API, so it is done here from the
key's numbers, as RFC 8017 §8.2 / §7.2 describe the padding.

  capgo_v2.py seal PRIVATE_KEY_B64 ZIP OUT_BUNDLE    prints {"checksum", "sessionKey"}
  capgo_v2.py open PUBLIC_KEY_B64 BUNDLE CHECKSUM SESSION_KEY OUT_ZIP
"""
import base64
import hashlib
import json
import os
import sys

from cryptography.hazmat.primitives import padding, serialization
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def load(b64, private):
    pem = base64.b64decode(b64)
    if private:
        return serialization.load_pem_private_key(pem, password=None)
    return serialization.load_pem_public_key(pem)


def private_encrypt(key, data):
    numbers = key.private_numbers()
    n, d = numbers.public_numbers.n, numbers.d
    k = (n.bit_length() + 7) // 8
    if len(data) > k - 11:
        raise ValueError("data too long")
    block = b"\x00\x01" + b"\xff" * (k - 3 - len(data)) + b"\x00" + data
    return pow(int.from_bytes(block, "big"), d, n).to_bytes(k, "big")


def public_decrypt(key, data):
    numbers = key.public_numbers()
    k = (numbers.n.bit_length() + 7) // 8
    block = pow(int.from_bytes(data, "big"), numbers.e, numbers.n).to_bytes(k, "big")
    if block[:2] != b"\x00\x01":
        raise ValueError("not a type-1 block")
    separator = block.index(b"\x00", 2)
    if separator < 10 or set(block[2:separator]) != {0xFF}:
        raise ValueError("bad padding")
    return block[separator + 1:]


def seal(private_b64, zip_path, out_path):
    key = load(private_b64, True)
    data = open(zip_path, "rb").read()
    aes_key, iv = os.urandom(16), os.urandom(16)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(data) + padder.finalize()
    encryptor = Cipher(algorithms.AES(aes_key), modes.CBC(iv)).encryptor()
    open(out_path, "wb").write(encryptor.update(padded) + encryptor.finalize())
    checksum = private_encrypt(key, hashlib.sha256(data).digest()).hex()
    session = base64.b64encode(iv).decode() + ":" + base64.b64encode(private_encrypt(key, aes_key)).decode()
    print(json.dumps({"checksum": checksum, "sessionKey": session}))


def open_bundle(public_b64, bundle_path, checksum, session_key, out_path):
    key = load(public_b64, False)
    iv_b64, encrypted_key_b64 = session_key.split(":")
    aes_key = public_decrypt(key, base64.b64decode(encrypted_key_b64))
    expected = public_decrypt(key, bytes.fromhex(checksum))
    decryptor = Cipher(algorithms.AES(aes_key), modes.CBC(base64.b64decode(iv_b64))).decryptor()
    padded = decryptor.update(open(bundle_path, "rb").read()) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    data = unpadder.update(padded) + unpadder.finalize()
    if hashlib.sha256(data).digest() != expected:
        print(json.dumps({"ok": False, "error": "checksum mismatch"}))
        sys.exit(1)
    open(out_path, "wb").write(data)
    print(json.dumps({"ok": True, "size": len(data)}))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "seal":
        seal(*sys.argv[2:5])
    elif command == "open":
        open_bundle(*sys.argv[2:7])
    else:
        sys.exit(f"unknown command {command}")
