"""The result model: derived counts, metrics, and a JSON that reads back unchanged."""

from runners import CorrectnessResults, ExecutionResult, TestResult
from runners import GroupType as G
from runners.model.results import SCHEMA_VERSION


def _tests():
    spec = [
        ("a", G.CORE, "passed"),
        ("b", G.CORE, "failed"),
        ("c", G.FUNCTIONALITY, "passed"),
        ("d", G.ERROR, "error"),
        ("e", G.REGRESSION, "failed"),
        ("f", G.REGRESSION, "passed"),
    ]
    return [
        TestResult(
            id=i,
            name=i,
            checkpoint="checkpoint_2",
            group_type=g,
            status=s,
            failure_message=None if s == "passed" else f"{i} broke\nsecond line",
        )
        for i, g, s in spec
    ]


def test_counts_and_metrics_are_derived_from_tests():
    result = ExecutionResult(
        problem_name="p", checkpoint_name="checkpoint_2", tests=_tests(), pass_counts={G.CORE: 99}
    )  # ignored: always derived
    assert result.pass_counts == {G.CORE: 1, G.FUNCTIONALITY: 1, G.ERROR: 0, G.REGRESSION: 1}
    assert result.total_counts == {G.CORE: 2, G.FUNCTIONALITY: 1, G.ERROR: 1, G.REGRESSION: 2}
    assert result.pass_rate == 3 / 6
    assert result.core_pass_rate == 1 / 2
    assert result.checkpoint_pass_rate == 2 / 4  # Regression excluded
    assert result.summary == "Core 1/2, Functionality 1/1, Error 0/1, Regression 1/2"
    assert [t.id for t in result.failing_tests] == ["b", "d", "e"]
    assert result.failing_tests[0].first_message_line == "b broke"


def test_json_round_trip_keeps_everything():
    result = ExecutionResult(
        problem_name="p",
        problem_version=2,
        checkpoint_name="checkpoint_2",
        tests=_tests(),
        exit_code=1,
        collected=6,
        errors=["note"],
        flags=["unsandboxed"],
    )
    text = result.model_dump_json()
    assert f'"schema_version":{SCHEMA_VERSION}' in text
    assert '"summary":"Core 1/2' in text  # computed fields are written for readers
    again = ExecutionResult.model_validate_json(text)
    assert again == result
    assert again.model_dump_json() == text


def test_save_and_load(tmp_path):
    result = ExecutionResult(problem_name="p", checkpoint_name="c", tests=_tests())
    assert ExecutionResult.load(result.save(tmp_path / "one.json")) == result
    (tmp_path / "dir").mkdir()
    assert result.save(tmp_path / "dir") == tmp_path / "dir" / "result.json"
    assert ExecutionResult.load(tmp_path / "dir") == result


def test_infrastructure_failure_summary():
    result = ExecutionResult(
        problem_name="p",
        checkpoint_name="c",
        infrastructure_failure=True,
        infrastructure_reason="pytest exited 4 (usage error)",
    )
    assert result.summary == "INFRASTRUCTURE FAILURE: pytest exited 4 (usage error)"
    assert result.pass_rate == 0.0 and result.core_pass_rate is None


def test_scbench_name_is_the_same_model():
    assert CorrectnessResults is ExecutionResult
