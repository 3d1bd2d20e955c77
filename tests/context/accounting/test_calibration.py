from __future__ import annotations

from pi_tui.context.accounting.calibration import (
    UNCALIBRATED,
    Calibration,
    calibrate,
    prefix_tokens,
    reported_prompt,
)
from pi_tui.context.accounting.record import RequestRecord
from tests.context.accounting.builders import OTHER_TOOL, TOOL, record, reply, user

LONG = "a sentence of ordinary words that the tokenizer splits into a handful of tokens. " * 12


def sent(turns: int, reported: int, *, tools: tuple[object, ...] = (TOOL, OTHER_TOOL)) -> RequestRecord:
    messages = [(f"u{n}", user(f"{LONG} {n}")) for n in range(turns)]
    return record(messages, tools=tools, response=reply("ok", input=reported, output=7))  # type: ignore[arg-type]


def test_one_reported_prompt_is_enough_for_the_estimate_of_that_request_to_match_it() -> None:
    last = sent(2, 0)
    estimated = last.total_tokens()
    for reported in (estimated // 2, estimated - 1, estimated + 37, 3 * estimated):
        last = sent(2, reported)
        calibration = calibrate([last])
        assert calibration.basis == "request"
        assert (
            calibration.request(prefix_tokens(last), last.messages.total())
            == reported
            == reported_prompt(last)
        )


def test_a_server_that_drops_the_tools_lowers_the_prefix_not_the_messages() -> None:
    unsent = sent(1, 0)
    tools = unsent.tools.total()
    assert tools > 50
    # The server counts everything it was given but the tool schemas.
    first = sent(1, unsent.total_tokens() - tools)
    second = sent(3, sent(3, 0).total_tokens() - tools)
    calibration = calibrate([first, second])
    assert calibration.basis == "per-kind"
    assert abs(calibration.message_ratio - 1) < 1e-9
    system = second.system.total()
    assert abs(calibration.prefix_ratio - system / (system + tools)) < 1e-9
    for request in (first, second):
        assert calibration.request(prefix_tokens(request), request.messages.total()) == reported_prompt(
            request
        )
    # With the first record alone the same drop is spread over every token of the request.
    alone = calibrate([first])
    assert alone.basis == "request" and alone.prefix_ratio == alone.message_ratio < 1


def test_records_without_a_believable_report_leave_the_estimates_alone() -> None:
    assert calibrate([]) is UNCALIBRATED
    assert calibrate([sent(2, 0)]) is UNCALIBRATED  # no usage reported
    estimated = sent(2, 0).total_tokens()
    assert calibrate([sent(2, estimated // 100)]) is UNCALIBRATED  # a scripted "10 tokens" for a long prompt
    # The newest record without usage does not hide the one before it.
    assert calibrate([sent(2, estimated), sent(3, 0)]).basis == "request"


def test_another_prefix_is_not_used_to_attribute_per_kind() -> None:
    first = sent(1, sent(1, 0, tools=(TOOL,)).total_tokens(), tools=(TOOL,))
    second = sent(3, sent(3, 0).total_tokens() // 2)
    assert calibrate([first, second]).basis == "request"


def test_parts_round_on_their_own_and_the_request_once() -> None:
    calibration = Calibration(0.5, 1.5, "per-kind")
    assert (calibration.prefix(3), calibration.messages(3), calibration.request(3, 3)) == (2, 4, 6)
