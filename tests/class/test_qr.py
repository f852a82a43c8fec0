"""The join link's QR code, drawn by the page's own encoder (static/js/class/qr.js), is exactly the
symbol a reference encoder (the ``qrcode`` package) makes for the same text, version and mask, for
links of every length a class uses; and the mask the page chooses is one of them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

qrcode = pytest.importorskip("qrcode")
from qrcode.util import MODE_8BIT_BYTE, QRData  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ["http://127.0.0.1:8000/?class=Ab3_xY-9qRsTuVwXyZ01ab",
         "https://gradviz.example.edu/?class=" + "k" * 22,
         "https://a-much-longer-host-name.university.example.edu:8443/teaching/gradviz/?class=" + "Q" * 22
         + "&lang=zh" + "&x=" + "y" * 60,
         "x", "课堂 http://h/?class=0", "https://h/?class=" + "z" * 190]


def page_matrices(cases: list[tuple[str, int | None]]) -> list[list[list[bool]]]:
    script = (f"import {{ qrMatrix }} from {json.dumps((ROOT / 'static/js/class/qr.js').as_uri())};\n"
              f"const cases = {json.dumps(cases)};\n"
              "console.log(JSON.stringify(cases.map(([t, m]) => qrMatrix(t, m))));\n")
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def reference(text: str, version: int, mask: int) -> list[list[bool]]:
    qr = qrcode.QRCode(version=version, error_correction=qrcode.constants.ERROR_CORRECT_M, border=0,
                       mask_pattern=mask)
    qr.add_data(QRData(text.encode(), mode=MODE_8BIT_BYTE))
    qr.make(fit=False)
    return [[bool(v) for v in row] for row in qr.get_matrix()]


@pytest.mark.skipif(not shutil.which("node"), reason="node needed")
def test_the_page_draws_the_reference_symbol():
    cases = [(t, m) for t in TEXTS for m in range(8)] + [(t, None) for t in TEXTS]
    got = page_matrices(cases)
    versions = set()
    for (text, mask), matrix in zip(cases, got):
        version = (len(matrix) - 17) // 4
        versions.add(version)
        if mask is not None:
            assert matrix == reference(text, version, mask), (text, mask)
        else:
            assert any(matrix == reference(text, version, m) for m in range(8)), text
    assert {1, 2, 4, 9, 10} <= versions  # version information from 7 on, a 16-bit length at 10
