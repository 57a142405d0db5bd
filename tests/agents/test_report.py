"""What an agent said, read from the JSON (or text) the common coding-agent CLIs print.

The samples follow the formats in docs/agents.md (Claude Code `--output-format json` and
`stream-json`, Codex `exec --json`, Gemini CLI `--output-format json`/`stream-json`, Aider's
summary lines); each test checks what the viewer would show: the final text, the error, the
cost and the token counts, and that a plain-text agent gets no invented numbers.
"""

from __future__ import annotations

import json

from runners.agents.report import excerpt, read_report

CLAUDE = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "duration_ms": 41234,
    "num_turns": 7,
    "result": "Implemented the importer; all commands handled.",
    "session_id": "abc",
    "total_cost_usd": 0.1234,
    "usage": {
        "input_tokens": 1200,
        "cache_creation_input_tokens": 3000,
        "cache_read_input_tokens": 20000,
        "output_tokens": 2500,
    },
}


def test_claude_json_result_gives_text_cost_and_every_input_token():
    report = read_report(json.dumps(CLAUDE))
    assert report.format == "claude-json" and not report.is_error
    assert report.final_text == "Implemented the importer; all commands handled."
    assert report.cost_usd == 0.1234
    # input_tokens excludes the cache: the prompt is all three, the cached part the cache reads.
    assert report.token_usage() == {
        "prompt": 24200,
        "completion": 2500,
        "total": 26700,
        "numRequests": 7,
        "completionDetails": {"cacheReadInputTokens": 20000, "cacheCreationInputTokens": 3000},
    }


def test_claude_verbose_array_and_stream_json_end_in_the_same_result():
    verbose = [
        {"type": "system", "subtype": "init"},
        {"type": "assistant", "message": {"content": []}},
        CLAUDE,
    ]
    stream = "\n".join(json.dumps(m) for m in verbose)
    for text in (json.dumps(verbose), stream):
        report = read_report(text)
        assert report.format == "claude-json" and report.cost_usd == 0.1234 and report.turns == 7


def test_claude_error_result_is_an_error_with_its_subtype():
    failed = {
        **CLAUDE,
        "subtype": "error_max_turns",
        "is_error": True,
        "result": None,
        "errors": [],
    }
    report = read_report(json.dumps(failed))
    assert report.is_error and report.error == "error_max_turns" and report.final_text is None


def test_codex_jsonl_sums_turns_and_keeps_the_last_message():
    lines = [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "i0", "type": "reasoning", "text": "thinking"}},
        {
            "type": "item.completed",
            "item": {"id": "i1", "type": "agent_message", "text": "First pass."},
        },
        {
            "type": "turn.completed",
            "usage": {"input_tokens": 2946, "cached_input_tokens": 1000, "output_tokens": 7},
        },
        {"type": "turn.started"},
        {
            "type": "item.completed",
            "item": {"id": "i2", "type": "agent_message", "text": "Done: tests pass."},
        },
        {
            "type": "turn.completed",
            "usage": {"input_tokens": 4000, "cached_input_tokens": 2900, "output_tokens": 93},
        },
    ]
    report = read_report(
        "\n".join(json.dumps(line) for line in lines), "Reading prompt from stdin...\n"
    )
    assert report.format == "codex-jsonl" and not report.is_error
    assert report.final_text == "Done: tests pass."
    assert report.cost_usd is None  # codex prints no price: unknown, not zero
    assert report.token_usage() == {
        "prompt": 6946,
        "completion": 100,
        "total": 7046,
        "numRequests": 2,
        "completionDetails": {"cacheReadInputTokens": 3900},
    }


def test_codex_failed_turn_is_an_error_even_when_it_exits_0():
    lines = [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.started"},
        {"type": "turn.failed", "error": {"message": "stream disconnected before completion"}},
    ]
    report = read_report("\n".join(json.dumps(line) for line in lines))
    assert report.is_error and report.error == "stream disconnected before completion"


def test_gemini_json_tokens_per_model_and_error():
    out = {
        "session_id": "s",
        "response": "I added the parser.",
        "stats": {
            "models": {
                "gemini-2.5-pro": {
                    "api": {"totalRequests": 3, "totalErrors": 0},
                    "tokens": {
                        "prompt": 5000,
                        "candidates": 400,
                        "total": 5600,
                        "cached": 1000,
                        "thoughts": 200,
                        "tool": 0,
                    },
                }
            },
            "tools": {"totalCalls": 4},
        },
    }
    report = read_report(json.dumps(out))
    assert report.format == "gemini-json" and report.final_text == "I added the parser."
    assert report.token_usage() == {
        "prompt": 5000,
        "completion": 600,
        "total": 5600,
        "numRequests": 3,
        "completionDetails": {"cacheReadInputTokens": 1000},
    }
    failed = {
        "session_id": "s",
        "error": {"type": "FatalAuthenticationError", "message": "no API key", "code": 41},
    }
    report = read_report(json.dumps(failed))
    assert report.is_error and report.error == "no API key"


def test_json_printed_over_several_lines_after_other_output_is_read():
    """Gemini CLI prints its JSON indented over many lines, and some versions print a line
    ("Loaded cached credentials.") on stdout before it; Claude Code may follow a notice."""
    gemini = {
        "session_id": "s",
        "response": "Wrote upper.txt.",
        "stats": {
            "models": {
                "gemini-2.5-flash": {
                    "api": {"totalRequests": 2},
                    "tokens": {
                        "prompt": 700,
                        "candidates": 50,
                        "total": 790,
                        "cached": 0,
                        "thoughts": 40,
                        "tool": 0,
                    },
                }
            }
        },
    }
    text = "Loaded cached credentials.\n" + json.dumps(gemini, indent=2) + "\n"
    report = read_report(text)
    assert report.format == "gemini-json" and report.final_text == "Wrote upper.txt."
    assert report.token_usage() == {
        "prompt": 700,
        "completion": 90,
        "total": 790,
        "numRequests": 2,
        "completionDetails": {"cacheReadInputTokens": 0},
    }
    assert excerpt(report, text, "") == "Wrote upper.txt."
    notice = "npm notice: a new version is available\n" + json.dumps(CLAUDE, indent=2) + "\nbye\n"
    assert read_report(notice).cost_usd == 0.1234


def test_gemini_stream_json_assembles_the_assistant_text():
    lines = [
        {"type": "init", "session_id": "s", "model": "m"},
        {"type": "message", "role": "assistant", "content": "Adding ", "delta": True},
        {"type": "message", "role": "assistant", "content": "tests.", "delta": True},
        {
            "type": "result",
            "status": "success",
            "stats": {"total_tokens": 900, "input_tokens": 800, "output_tokens": 100, "cached": 0},
        },
    ]
    report = read_report("\n".join(json.dumps(line) for line in lines))
    assert report.format == "gemini-stream-json" and report.final_text == "Adding tests."
    assert report.token_usage() == {
        "prompt": 800,
        "completion": 100,
        "total": 900,
        "completionDetails": {"cacheReadInputTokens": 0},
    }


def test_aider_summary_lines_are_summed_and_the_session_cost_kept():
    text = (
        "Applied edit to main.py\n"
        "Tokens: 12k sent, 2.1k cache write, 8k cache hit, 450 received. "
        "Cost: $0.02 message, $0.02 session.\n"
        "Applied edit to store.py\n"
        "Tokens: 3.5k sent, 120 received. Cost: $0.01 message, $0.03 session.\n"
    )
    report = read_report(text)
    assert report.format == "aider" and report.cost_usd == 0.03
    assert (
        report.prompt_tokens == 15500
        and report.completion_tokens == 570
        and report.cached_tokens == 8000
    )
    assert report.cache_write_tokens == 2100


def test_plain_text_agent_reports_its_last_lines_and_no_numbers():
    report = read_report("step 1\nstep 2\n\nAll done, wrote main.py.\n", "warning: slow disk\n")
    assert report.format == "text" and report.token_usage() is None and report.cost_usd is None
    assert (
        excerpt(report, "step 1\nstep 2\n\nAll done, wrote main.py.\n", "")
        == "step 1 step 2 All done, wrote main.py."
    )


def test_excerpt_is_short_and_falls_back_to_stderr():
    report = read_report("", "")
    assert (
        excerpt(report, "", "Traceback ...\nValueError: bad spec\n")
        == "Traceback ... ValueError: bad spec"
    )
    long = read_report(json.dumps({**CLAUDE, "result": "x" * 5000}))
    assert len(excerpt(long, "", "")) == 300 and excerpt(long, "", "").endswith("…")
