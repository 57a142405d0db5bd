"""Problem configs: what loads, what inherits, and the errors users see for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support import make_problem

from runners import ConfigError, GroupType, load_problem
from runners.model.errors import UserInputError


def _problem(tmp_path: Path, **config) -> Path:
    return make_problem(tmp_path, {"test_checkpoint_1.py": "def test_x(): pass\n"}, **config)


def _rewrite(problem: Path, mutate) -> None:
    path = problem / "config.yaml"
    data = yaml.safe_load(path.read_text())
    mutate(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _error(problem: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_problem(problem)
    text = str(info.value)
    assert str(problem / "config.yaml") in text or str(problem) in text
    return text


def test_checkpoints_inherit_timeout_and_env_and_get_default_order(tmp_path):
    problem_dir = _problem(
        tmp_path,
        checkpoints=2,
        timeout=12,
        env={"A": "problem", "B": "problem"},
    )
    _rewrite(
        problem_dir, lambda d: d["checkpoints"]["checkpoint_2"].update(timeout=3, env={"B": "cp2"})
    )
    problem = load_problem(problem_dir)
    cp1, cp2 = problem.checkpoint("checkpoint_1"), problem.checkpoint("checkpoint_2")
    assert (cp1.timeout, cp2.timeout) == (12, 3)
    assert cp1.env == {"A": "problem", "B": "problem"}
    assert cp2.env == {"A": "problem", "B": "cp2"}
    assert [c.name for c in problem.ordered_checkpoints()] == ["checkpoint_1", "checkpoint_2"]
    assert (cp1.order, cp2.order) == (1, 2)
    assert cp1.include_prior_tests is True
    assert problem.framework == "pytest"


def test_explicit_order_wins_over_position(tmp_path):
    problem_dir = _problem(tmp_path, checkpoints=2)
    _rewrite(problem_dir, lambda d: d["checkpoints"]["checkpoint_1"].update(order=5))
    problem = load_problem(problem_dir)
    assert [c.name for c in problem.ordered_checkpoints()] == ["checkpoint_2", "checkpoint_1"]
    assert [c.name for c in problem.checkpoints_up_to(problem.checkpoint("checkpoint_1"))] == [
        "checkpoint_2",
        "checkpoint_1",
    ]


def test_custom_markers_map_to_groups(tmp_path):
    problem = load_problem(
        _problem(tmp_path, markers={"slow_io": {"description": "io", "group": "Functionality"}})
    )
    assert problem.marker_groups() == {"slow_io": GroupType.FUNCTIONALITY}


def test_unknown_top_level_key_is_named_with_the_allowed_keys(tmp_path):
    text = _error(_problem(tmp_path, colour="blue"))
    assert "field `colour`: unknown key" in text
    assert "test_dependencies" in text  # the allowed keys are listed


def test_unknown_checkpoint_key_is_named_with_its_path(tmp_path):
    problem = _problem(tmp_path)
    _rewrite(problem, lambda d: d["checkpoints"]["checkpoint_1"].update(include_prior=False))
    text = _error(problem)
    assert "field `checkpoints.checkpoint_1.include_prior`: unknown key" in text
    assert "include_prior_tests" in text


def test_wrong_type_says_what_was_expected(tmp_path):
    text = _error(_problem(tmp_path, version="one"))
    assert "field `version`" in text and "integer" in text and "'one'" in text


def test_missing_required_field(tmp_path):
    problem = _problem(tmp_path)
    _rewrite(problem, lambda d: d.pop("description"))
    assert "field `description`: required but missing" in _error(problem)


def test_marker_group_must_be_a_group_name(tmp_path):
    text = _error(_problem(tmp_path, markers={"slow": {"group": "FUNCTIONALITY"}}))
    assert "field `markers.slow.group`" in text and "Functionality" in text


def test_builtin_marker_cannot_be_redefined(tmp_path):
    text = _error(_problem(tmp_path, markers={"error": {"group": "Core"}}))
    assert "built in" in text


def test_legacy_checkpoint_list_is_explained(tmp_path):
    text = _error(_problem(tmp_path, checkpoints=["checkpoint_1"]))
    assert "field `checkpoints`" in text and "mapping" in text


def test_invalid_yaml_names_line_and_column(tmp_path):
    problem = _problem(tmp_path)
    (problem / "config.yaml").write_text("name: demo\nversion: [1\n")
    text = _error(problem)
    assert "line 3" in text or "line 2" in text
    assert "not valid YAML" in text


def test_top_level_must_be_a_mapping(tmp_path):
    problem = _problem(tmp_path)
    (problem / "config.yaml").write_text("- a\n- b\n")
    assert "expected a mapping" in _error(problem)


def test_missing_tests_directory_and_asset(tmp_path):
    problem = _problem(tmp_path, static_assets={"catalog": {"path": "assets/catalog.csv"}})
    for path in (problem / "tests").iterdir():
        path.unlink()
    (problem / "tests").rmdir()
    text = _error(problem)
    assert "directory `tests/` is missing" in text
    assert "field `static_assets.catalog.path`" in text and "does not exist" in text


def test_asset_cannot_escape_the_problem_directory(tmp_path):
    (tmp_path / "secret.txt").write_text("x")
    text = _error(_problem(tmp_path, static_assets={"s": {"path": "../secret.txt"}}))
    assert "must stay inside the problem directory" in text


def test_unknown_checkpoint_name_lists_known_ones(tmp_path):
    problem = load_problem(_problem(tmp_path, checkpoints=2))
    with pytest.raises(
        UserInputError, match="has no checkpoint 'checkpoint_9' .*checkpoint_1, checkpoint_2"
    ) as info:
        problem.checkpoint("checkpoint_9")
    assert not isinstance(info.value, ConfigError)  # the problem's config is not at fault


def test_missing_problem_directory(tmp_path):
    with pytest.raises(UserInputError, match="problem directory not found"):
        load_problem(tmp_path / "nope")
