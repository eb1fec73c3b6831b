"""The span parsers on the sample exports: literal records per format (no database).

The samples hold three documents annotated by alice and bob (see each file):
d1 "Angela Merkel visited Siemens in Munich." (Angela Merkel 0-13, Siemens 22-29,
Munich 33-39), d2 "The weather was fine." (nothing to find), d3 "Apple and Google opened
offices in Berlin and Paris." (Apple 0-5, Apple and Google 0-16, Google 10-16, Berlin
35-41, Paris 46-51); bob's "Apple and Google" overlaps his "Apple" and "Google".
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest

from exchange.formats import FORMATS, MalformedFileError, ParsedFile, ParseOptions
from exchange.formats.base import ModelCoderSpec
from tests.exchange.conftest import sample

Span = tuple[str, str, str, int | None, int | None, str | None, str | None]


def parse(fmt: str, data: bytes, **options: Any) -> ParsedFile:
    return FORMATS[fmt].parse(data, ParseOptions(**options))


def spans(parsed: ParsedFile) -> list[Span]:
    return [(s.source, s.document, s.coder, s.begin, s.end, s.label, s.field) for s in parsed.spans]


def rejections(parsed: ParsedFile) -> list[tuple[str, str, str, tuple[str, str] | None]]:
    return [(r.source, r.field, r.code, r.pair) for r in parsed.rejected]


D1 = "Angela Merkel visited Siemens in Munich."
D2 = "The weather was fine."
D3 = "Apple and Google opened offices in Berlin and Paris."


# Label Studio ---------------------------------------------------------------------------


def test_label_studio_labels_are_units_of_the_task_and_an_empty_result_is_nothing_found() -> None:
    parsed = parse("label_studio", sample("label_studio_ner.json"))
    assert spans(parsed) == [
        ("task 1, annotation 101, result a10", "1", "1", 0, 13, "PER", "label"),
        ("task 1, annotation 101, result a11", "1", "1", 22, 29, "ORG", "label"),
        ("task 1, annotation 101, result a12", "1", "1", 33, 39, "LOC", "label"),
        ("task 1, annotation 102, result b10", "1", "2", 0, 13, "PER", "label"),
        ("task 1, annotation 102, result b11", "1", "2", 22, 29, "LOC", "label"),
        # the model's prediction, its coder the model_version (a model coder)
        ("task 1, prediction 5, result p1", "1", "ner-v1", 0, 6, "PER", "label"),
        ("task 2, annotation 103", "2", "1", None, None, None, "label"),
        ("task 2, annotation 104", "2", "2", None, None, None, "label"),
        ("task 3, annotation 105, result a30", "3", "1", 0, 5, "ORG", "label"),
        ("task 3, annotation 105, result a31", "3", "1", 10, 16, "ORG", "label"),
        ("task 3, annotation 105, result a32", "3", "1", 35, 41, "LOC", "label"),
        ("task 3, annotation 105, result a33", "3", "1", 46, 51, "LOC", "label"),
        ("task 3, annotation 106, result b30", "3", "2", 0, 5, "ORG", "label"),
        ("task 3, annotation 106, result b31", "3", "2", 0, 16, "ORG", "label"),
        ("task 3, annotation 106, result b32", "3", "2", 10, 16, "ORG", "label"),
        ("task 3, annotation 106, result b33", "3", "2", 35, 41, "LOC", "label"),
    ]
    assert {key: doc.text for key, doc in parsed.documents.items()} == {"1": D1, "2": D2, "3": D3}
    assert parsed.skipped == {"cancelled annotation": 1}
    assert parsed.model_coders == {"ner-v1": ModelCoderSpec("ner-v1", "ner-v1")}
    assert parsed.rows == []
    assert parsed.rejected == []
    without = parse("label_studio", sample("label_studio_ner.json"), predictions=False)
    assert [s for s in spans(without) if s[2] == "ner-v1"] == []
    assert without.skipped == {
        "cancelled annotation": 1,
        "model prediction (predictions=false)": 1,
    }


def test_label_studio_document_key_text_or_a_data_field() -> None:
    by_field = parse("label_studio", sample("label_studio_ner.json"), document_key="doc")
    assert sorted({s.document for s in by_field.spans}) == ["d1", "d2", "d3"]
    # text: the first 20 hex digits of the SHA-256 of the UTF-8 text (hashlib, by hand)
    expected = {
        "text:8b90285f342d25ae1a76",
        "text:6da6b3a961c22bb7aa3a",
        "text:d55394466bcb7c225821",
    }
    for fmt, name, options in (
        ("label_studio", "label_studio_ner.json", {}),
        ("doccano", "doccano_ner_bob.jsonl", {"coder": "bob"}),
        ("prodigy", "prodigy_ner.jsonl", {}),
    ):
        by_text = parse(fmt, sample(name), document_key="text", **options)
        assert {s.document for s in by_text.spans} == expected, fmt


def test_label_studio_an_annotation_without_the_span_field_found_nothing_there() -> None:
    """alice: a region with JavaScript (UTF-16) offsets after an emoji, a region with two
    labels, a choice; bob: a choice only; carol: an empty result."""
    parsed = parse("label_studio", sample("label_studio_spans_mixed.json"))
    assert spans(parsed) == [
        ("task 601, annotation 6001, result g1", "601", "alice@example.org", 12, 18, "ORG", "ner"),
        ("task 601, annotation 6001, result g2", "601", "alice@example.org", 23, 35, "PER", "ner"),
        ("task 601, annotation 6001, result g2", "601", "alice@example.org", 23, 35, "ORG", "ner"),
        ("task 601, annotation 6002", "601", "bob@example.org", None, None, None, "ner"),
        ("task 601, annotation 6003", "601", "carol@example.org", None, None, None, "ner"),
    ]
    text = parsed.documents["601"].text
    assert (text[12:18], text[23:35]) == ("Google", "Ada Lovelace")
    assert [(r.item, r.coder, r.label, r.field) for r in parsed.rows] == [
        ("601", "alice@example.org", "pos", "sentiment"),
        ("601", "bob@example.org", "neutral", "sentiment"),
    ]
    assert parsed.notes == [
        "2 span(s) had JavaScript (UTF-16) offsets, which count a character outside the "
        "Basic Multilingual Plane (an emoji...) twice; they were converted to character "
        "offsets, checked against the span's text."
    ]


def test_label_studio_hypertext_uses_global_offsets_and_paragraphs_without_them_are_refused() -> (
    None
):
    hypertext = parse("label_studio", sample("label_studio_hypertext.json"))
    assert spans(hypertext) == [
        ("task 701, annotation 7001, result x1", "701", "10", 0, 3, "PER", "html_ner"),
        ("task 701, annotation 7001, result x2", "701", "10", 8, 15, "PER", "html_ner"),
    ]
    paragraphs = parse("label_studio", sample("label_studio_paragraphs.json"))
    assert spans(paragraphs) == []
    assert rejections(paragraphs) == [
        ("task 702, annotation 7002, result y1", "value.globalOffsets", "invalid_offsets",
         ("702", "10")),
    ]  # fmt: skip
    assert paragraphs.rejected[0].tool_field == "dialog_ner"


def test_label_studio_bad_offsets_name_the_task_annotation_and_result() -> None:
    parsed = parse("label_studio", sample("label_studio_spans_bad_offsets.json"))
    assert [(r.source, r.code, r.detail) for r in parsed.rejected] == [
        ("task 801, annotation 8001, result z1", "invalid_offsets",
         "end 2 must be greater than start 6."),
        ("task 801, annotation 8001, result z2", "invalid_offsets",
         "end 40 is past the end of the text (11 characters)."),
        ("task 801, annotation 8001, result z3", "invalid_offsets",
         "start and end must be whole character offsets (got '0' and 5)."),
    ]  # fmt: skip
    assert spans(parsed) == [
        ("task 801, annotation 8002, result z4", "801", "11", 0, 5, "ORG", "ner")
    ]


# doccano --------------------------------------------------------------------------------


def test_doccano_both_span_shapes_and_an_empty_list_is_nothing_found() -> None:
    alice = parse("doccano", sample("doccano_ner_alice.jsonl"), filename="alice.jsonl")
    assert spans(alice) == [
        ("line 1, span 1", "31", "alice", 0, 13, "PER", None),
        ("line 1, span 2", "31", "alice", 22, 29, "ORG", None),
        ("line 1, span 3", "31", "alice", 33, 39, "LOC", None),
        ("line 2", "32", "alice", None, None, None, None),
        ("line 3, span 1", "33", "alice", 0, 5, "ORG", None),
        ("line 3, span 2", "33", "alice", 10, 16, "ORG", None),
        ("line 3, span 3", "33", "alice", 35, 41, "LOC", None),
        ("line 3, span 4", "33", "alice", 46, 51, "LOC", None),
    ]
    bob = parse("doccano", sample("doccano_ner_bob.jsonl"), coder="bob")
    assert spans(bob) == [
        ("line 1, entity 1", "31", "bob", 0, 13, "PER", None),
        ("line 1, entity 2", "31", "bob", 22, 29, "LOC", None),
        ("line 2", "32", "bob", None, None, None, None),
        ("line 3, entity 1", "33", "bob", 0, 5, "ORG", None),
        ("line 3, entity 2", "33", "bob", 0, 16, "ORG", None),
        ("line 3, entity 3", "33", "bob", 10, 16, "ORG", None),
        ("line 3, entity 4", "33", "bob", 35, 41, "LOC", None),
    ]
    assert bob.documents["33"].text == D3


def test_doccano_user_field_and_an_offset_past_the_text() -> None:
    parsed = parse("doccano", sample("doccano_ner_users.jsonl"))
    assert spans(parsed) == [
        ("line 1, span 1", "31", "alice", 0, 13, "PER", None),
        ("line 1, span 2", "31", "alice", 22, 29, "ORG", None),
        ("line 2, span 1", "31", "bob", 0, 6, "PER", None),
        ("line 3", "32", "alice", None, None, None, None),
        ("line 4, span 1", "32", "bob", 4, 11, "MISC", None),
    ]
    assert [(r.source, r.code, r.detail, r.pair) for r in parsed.rejected] == [
        ("line 4, span 2", "invalid_offsets",
         "end 99 is past the end of the text (21 characters).", ("32", "bob")),
    ]  # fmt: skip


def test_doccano_zip_names_each_member_after_its_annotator() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("alice.jsonl", sample("doccano_ner_alice.jsonl"))
        archive.writestr("bob.jsonl", sample("doccano_ner_bob.jsonl"))
    parsed = parse("doccano", buffer.getvalue(), document_key="doc")
    assert sorted({(s.document, s.coder) for s in parsed.spans}) == [
        ("d1", "alice"), ("d1", "bob"), ("d2", "alice"), ("d2", "bob"),
        ("d3", "alice"), ("d3", "bob"),
    ]  # fmt: skip
    assert parsed.spans[0].source == "alice.jsonl line 1, span 1"


# Prodigy --------------------------------------------------------------------------------


def test_prodigy_accepted_spans_count_and_reject_and_ignore_are_skipped() -> None:
    parsed = parse("prodigy", sample("prodigy_ner.jsonl"))
    assert spans(parsed) == [
        ("line 1, span 1", "-1283746512", "ner_news-alice", 0, 13, "PER", None),
        ("line 1, span 2", "-1283746512", "ner_news-alice", 22, 29, "ORG", None),
        ("line 1, span 3", "-1283746512", "ner_news-alice", 33, 39, "LOC", None),
        ("line 2", "918273645", "ner_news-alice", None, None, None, None),
        ("line 3, span 1", "564738291", "ner_news-alice", 0, 5, "ORG", None),
        ("line 3, span 2", "564738291", "ner_news-alice", 10, 16, "ORG", None),
        ("line 3, span 3", "564738291", "ner_news-alice", 35, 41, "LOC", None),
        ("line 3, span 4", "564738291", "ner_news-alice", 46, 51, "LOC", None),
        ("line 4, span 1", "-1283746512", "ner_news-bob", 0, 13, "PER", None),
        ("line 4, span 2", "-1283746512", "ner_news-bob", 22, 29, "LOC", None),
        ("line 5", "918273645", "ner_news-bob", None, None, None, None),
        ("line 6, span 1", "564738291", "ner_news-bob", 0, 5, "ORG", None),
        ("line 6, span 2", "564738291", "ner_news-bob", 0, 16, "ORG", None),
        ("line 6, span 3", "564738291", "ner_news-bob", 10, 16, "ORG", None),
        ("line 6, span 4", "564738291", "ner_news-bob", 35, 41, "LOC", None),
    ]
    assert parsed.skipped == {"ignored answer": 1, "rejected span task": 1}
    assert parsed.rows == []


def test_prodigy_bad_spans_name_the_line() -> None:
    data = (
        b'{"text": "abc", "_input_hash": 1, "_annotator_id": "a", "answer": "accept",'
        b' "_view_id": "ner_manual", "spans": [{"start": 2, "end": 9, "label": "X"},'
        b' {"start": 0, "end": 1}]}\n'
    )
    parsed = parse("prodigy", data)
    assert [(r.source, r.field, r.code, r.detail) for r in parsed.rejected] == [
        ("line 1, span 1", "start", "invalid_offsets",
         "end 9 is past the end of the text (3 characters)."),
        ("line 1, span 2", "label", "required", "The span has no label."),
    ]  # fmt: skip


# INCEpTION ------------------------------------------------------------------------------


def test_webanno_tsv_reads_named_entities_with_stacks_chains_sub_tokens_and_utf16() -> None:
    alice = parse("inception_tsv", sample("inception_alice.tsv"), filename="news-001.txt.tsv",
                  coder="alice")  # fmt: skip
    # Google is at UTF-16 54-60 in the file, after an emoji (two UTF-16 units): 53-59.
    assert spans(alice) == [
        ("line 7", "news-001.txt", "alice", 0, 13, "PER", "NamedEntity.value"),
        ("line 10", "news-001.txt", "alice", 22, 29, "ORG", "NamedEntity.value"),
        ("line 10", "news-001.txt", "alice", 22, 29, "LOC", "NamedEntity.value"),
        ("line 12", "news-001.txt", "alice", 33, 39, "LOC", "NamedEntity.value"),
        ("line 19", "news-001.txt", "alice", 53, 59, "ORG", "NamedEntity.value"),
    ]
    text = alice.documents["news-001.txt"].text
    assert text == "Angela Merkel visited Siemens in Munich.\nFans 😀 love Google."
    assert text[53:59] == "Google"
    bob = parse("inception_tsv", sample("inception_bob.tsv"), filename="news-001.txt.tsv",
                coder="bob")  # fmt: skip
    assert spans(bob) == [
        ("line 1", "news-001.txt", "bob", None, None, None, "NamedEntity.value"),
    ]


def test_webanno_tsv_other_layer_sub_token_and_an_annotation_without_value() -> None:
    carol = parse("inception_tsv", sample("inception_malformed.tsv"), filename="news-001.txt.tsv",
                  coder="carol")  # fmt: skip
    assert spans(carol) == [
        ("line 7", "news-001.txt", "carol", 0, 3, "PER", "NamedEntity.value"),  # sub-token
        ("line 10", "news-001.txt", "carol", 22, 39, "ORG", "NamedEntity.value"),
    ]
    assert rejections(carol) == [
        ("line 19", "NamedEntity.value", "required", ("news-001.txt", "carol")),
    ]
    sentiment = parse("inception_tsv", sample("inception_alice.tsv"), filename="n.tsv",
                      coder="alice", layer="Sentiment")  # fmt: skip
    assert spans(sentiment) == [("line 12", "n", "alice", 33, 39, "positive", "Sentiment.polarity")]
    with pytest.raises(MalformedFileError) as error:
        parse("inception_tsv", sample("inception_alice.tsv"), filename="n.tsv", coder="a",
              layer="POS")  # fmt: skip
    assert error.value.message == (
        "has no span layer 'POS'; name one with the layer option (the file's span layers: "
        "NamedEntity.identifier, NamedEntity.value, Sentiment.polarity)."
    )


def test_webanno_tsv_project_archive_names_documents_by_folder_and_users_by_file() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("annotation/news-001.txt/alice.tsv", sample("inception_alice.tsv"))
        archive.writestr("annotation/news-001.txt/bob.tsv", sample("inception_bob.tsv"))
        archive.writestr("curation/news-001.txt/CURATION_USER.tsv", sample("inception_alice.tsv"))
        archive.writestr("annotation/news-001.txt/INITIAL_CAS.tsv", sample("inception_bob.tsv"))
    parsed = parse("inception_tsv", buffer.getvalue())
    assert sorted({(s.document, s.coder) for s in parsed.spans}) == [
        ("news-001.txt", "alice"),
        ("news-001.txt", "bob"),
    ]
    assert parsed.skipped == {"curation or initial document (no annotator)": 2}
    assert parsed.spans[0].source == "annotation/news-001.txt/alice.tsv line 7"


# CoNLL ----------------------------------------------------------------------------------


def test_conll_bio_units_in_tokens_and_a_document_of_o_is_nothing_found() -> None:
    alice = parse("conll", sample("conll_alice.conll"), filename="alice.conll")
    assert spans(alice) == [
        ("line 3", "1", "alice", 0, 1, "ORG", None),
        ("line 5", "1", "alice", 2, 3, "MISC", None),
        ("line 9", "1", "alice", 5, 7, "PER", None),
        ("line 12", "2", "alice", None, None, None, None),
    ]
    assert (alice.documents["1"].begin, alice.documents["1"].end) == (0, 7)
    assert alice.documents["1"].text == "EU rejects German call .\nPeter Blackburn"
    assert alice.span_unit == "token"
    # BIOES tags, and an I- after a blank line (a new sentence) begins a unit (IOB1)
    bob = parse("conll", sample("conll_bob.conll"), coder="bob")
    assert spans(bob) == [
        ("line 3", "1", "bob", 0, 1, "ORG", None),
        ("line 5", "1", "bob", 2, 4, "MISC", None),
        ("line 9", "1", "bob", 5, 7, "PER", None),
        ("line 15", "2", "bob", 1, 2, "LOC", None),
    ]


def test_conll_bad_lines_name_the_line_and_spoil_their_document_only() -> None:
    parsed = parse("conll", sample("conll_malformed.conll"), coder="carol")
    assert [(r.source, r.field, r.code, r.detail, r.pair) for r in parsed.rejected] == [
        ("line 4", "tag", "required",
         "A token line holds the token and its tag (in the last column).", ("1", "carol")),
        ("line 5", "tag", "invalid_type",
         "'X-MISC' is no BIO tag: O, or B-, I-, E-, S- (L-, U-) and a type.", ("1", "carol")),
    ]  # fmt: skip
    assert spans(parsed) == [
        ("line 3", "1", "carol", 0, 1, "ORG", None),
        ("line 7", "2", "carol", None, None, None, None),
    ]


def test_conll_without_an_annotator_name_is_a_malformed_file() -> None:
    with pytest.raises(MalformedFileError):
        parse("conll", sample("conll_alice.conll"))
