"""Validates SARIF files against the OASIS SARIF 2.1.0 JSON schema, independently of qualify.

The schema is not vendored: it is taken from the sdist of sarif-pydantic 0.6.2 on PyPI (which
ships the OASIS file), pinned by the sdist's SHA-256, and cached. Prints one JSON object:
{"schema": <title>, "files": {path: [error, ...]}}.

Usage: sarif_validate.py CACHE_DIR FILE...
"""

import hashlib
import io
import json
import os
import re
import sys
import tarfile
import urllib.request

import jsonschema

SDIST = "sarif_pydantic-0.6.2.tar.gz"
SDIST_SHA256 = "634df2784533fcac8e86f0c60a0e45ead1d35452dc2331d32596275595906e7f"
MEMBER = "sarif_pydantic-0.6.2/sarif-schema-2.1.0.json"


def schema(cache_dir):
    path = os.path.join(cache_dir, "sarif-schema-2.1.0.json")
    if not os.path.exists(path):
        index = urllib.request.urlopen(
            "https://pypi.org/simple/sarif-pydantic/", timeout=120).read().decode()
        links = re.findall(r'href="([^"#]*' + re.escape(SDIST) + r')[^"]*"', index)
        if not links:
            raise SystemExit("no %s on the PyPI index" % SDIST)
        data = urllib.request.urlopen(links[0], timeout=120).read()
        if hashlib.sha256(data).hexdigest() != SDIST_SHA256:
            raise SystemExit("%s does not have the pinned digest" % SDIST)
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            text = archive.extractfile(MEMBER).read()
        os.makedirs(cache_dir, exist_ok=True)
        with open(path + ".tmp", "wb") as out:
            out.write(text)
        os.replace(path + ".tmp", path)
    with open(path) as handle:
        return json.load(handle)


def main():
    document = schema(sys.argv[1])
    validator = jsonschema.Draft7Validator(document)
    report = {"schema": document.get("title", ""), "files": {}}
    for name in sys.argv[2:]:
        with open(name) as handle:
            log = json.load(handle)
        report["files"][name] = [
            "%s: %s" % ("/".join(str(p) for p in error.absolute_path), error.message)
            for error in validator.iter_errors(log)
        ]
    print(json.dumps(report))


main()
