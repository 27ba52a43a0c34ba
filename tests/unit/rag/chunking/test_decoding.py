"""Uploads become text lines: limits, gzip, binary refusal, encodings, newlines."""

from __future__ import annotations

import gzip

import pytest

from rag.chunking.decoding import UnsupportedUploadError, decode_upload, split_lines

LIMIT = 1024 * 1024


def lines_of(content: bytes, name: str = "app.log") -> list[str]:
    return split_lines(decode_upload(name, content, max_bytes=LIMIT).text)


def test_crlf_and_lone_cr_are_newlines_and_a_final_newline_ends_the_last_line() -> None:
    assert lines_of(b"one\r\ntwo\rthree\n") == ["one", "two", "three"]


def test_a_last_line_without_newline_is_kept() -> None:
    assert lines_of(b"one\ntwo") == ["one", "two"]


def test_blank_lines_keep_their_numbers() -> None:
    assert lines_of(b"one\n\nthree\n") == ["one", "", "three"]


def test_utf8_with_a_byte_order_mark_is_read_without_it() -> None:
    decoded = decode_upload("a.txt", "\ufeffcafé\n".encode(), max_bytes=LIMIT)

    assert decoded.text == "café\n"
    assert decoded.encoding == "utf-8-sig"


def test_utf16_with_a_byte_order_mark_is_text_not_binary() -> None:
    decoded = decode_upload("a.txt", "line one\nline two\n".encode("utf-16"), max_bytes=LIMIT)

    assert split_lines(decoded.text) == ["line one", "line two"]


def test_windows_1252_falls_back_instead_of_failing() -> None:
    decoded = decode_upload("a.log", "naïve – “quoted” €5\n".encode("cp1252"), max_bytes=LIMIT)

    assert decoded.text == "naïve – “quoted” €5\n"
    assert decoded.encoding == "cp1252"


def test_a_few_bad_bytes_in_utf8_are_replaced_not_reinterpreted() -> None:
    content = ("ok ünïcode line\n" * 200).encode() + b"broken \xff byte\n"

    decoded = decode_upload("a.log", content, max_bytes=LIMIT)

    assert "ünïcode" in decoded.text
    assert "broken \ufffd byte" in decoded.text


def test_gzip_is_decompressed_and_the_name_loses_gz() -> None:
    decoded = decode_upload("app.log.gz", gzip.compress(b"a\nb\n"), max_bytes=LIMIT)

    assert decoded.source == "app.log"
    assert split_lines(decoded.text) == ["a", "b"]


def test_a_corrupt_gzip_is_refused_clearly() -> None:
    with pytest.raises(UnsupportedUploadError, match="not a valid gzip file"):
        decode_upload("app.log.gz", b"\x1f\x8bnot really gzip", max_bytes=LIMIT)


def test_gzip_that_inflates_past_the_limit_is_refused() -> None:
    bomb = gzip.compress(b"0" * (LIMIT + 10))

    with pytest.raises(UnsupportedUploadError, match="decompresses to more than"):
        decode_upload("big.log.gz", bomb, max_bytes=LIMIT)


def test_a_file_over_the_limit_is_refused_naming_the_setting() -> None:
    with pytest.raises(UnsupportedUploadError, match="FM_MAX_UPLOAD_MB"):
        decode_upload("big.log", b"x" * (LIMIT + 1), max_bytes=LIMIT)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "PNG image"),
        (b"PK\x03\x04rest", "ZIP archive"),
        (b"%PDF-1.7\n", "PDF document"),
        (b"text\x00with\x00nul\x00bytes", "binary file"),
        (bytes(range(1, 9)) * 100, "binary file"),
    ],
)
def test_binary_content_is_refused_with_a_clear_message(content: bytes, reason: str) -> None:
    with pytest.raises(UnsupportedUploadError, match=reason):
        decode_upload("upload.bin", content, max_bytes=LIMIT)


def test_an_empty_file_has_no_lines() -> None:
    assert lines_of(b"") == []
