import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# Vendored repositories (tests/fixtures/repos) carry their own test suites: data, not our tests.
collect_ignore = ["fixtures"]


# Tests that run a real test framework through a prepared toolchain (uv, npm: the network on a
# cold cache, a second or more per run). They get the `toolchain` mark, which `make test-fast`
# leaves out together with `docker`, `node` and `slow`; `make test` runs everything. The engine's
# own checks on those runs are covered in milliseconds by test_engine.py (a fake sandbox).
# Module (relative to tests/) -> test function names, or None for every test of the module.
TOOLCHAIN_RUNS: dict[str, set[str] | None] = {
    "test_pytest_runner.py": None,
    "test_command_runners.py": None,
    "test_js_runners.py": None,
    "test_go_runner.py": None,
    "test_cases_compat.py": {"test_reference_solutions_get_full_marks", "test_a_wrong_submission_gets_the_grade_of_scbench_scoring"},
    "test_cases_runner.py": {"test_every_example_agent_of_the_case_problems_gets_its_expected_counts",
                             "test_a_failing_case_shows_its_diff_and_weights_in_every_output",
                             "test_same_case_results_under_none_bubblewrap_and_docker",
                             "test_a_loader_that_raises_is_bad_input_naming_the_script_and_case",
                             "test_a_verifier_that_raises_on_one_case_makes_that_case_an_error",
                             "test_a_case_s_timeout_kills_it_and_the_run_goes_on",
                             "test_select_runs_only_the_named_cases_and_refuses_unknown_ids"},
    "test_js_snapshots.py": None,
    "test_scbench_environment.py": None,
    "test_cases_outside.py": None,
    "sandbox/test_python_versions.py": None,
    "test_submission_limits.py": {"test_a_solution_kept_inside_the_problem_runs_but_not_one_holding_the_tests"},
    "test_examples.py": None,
    "test_repository_runs.py": None,
    "test_repository_projects.py": None,
    "test_real_repositories.py": {"test_inflection_graded_by_its_own_suite_matches_pytest_test_by_test"},
    "hostile/test_hostile.py": None,
    "hostile/test_scan.py": {"test_the_engine_puts_the_flags_on_the_result"},
    "batch/test_batch_cli.py": {"test_unknown_problems_are_reported_not_fatal"},
    "test_cli.py": {"test_met_policy_exits_0_and_prints_the_table", "test_unmet_policy_exits_1_and_lists_failures",
                    "test_evaluate_keeps_every_name_whole_piped_or_narrow",
                    "test_infrastructure_failure_exits_3", "test_evaluate_runs_every_checkpoint_and_prints_solve_results"},
    "agents/test_agent_cli.py": {"test_solve_runs_every_checkpoint_and_prints_the_table",
                                 "test_batch_runs_the_agents_file_then_grades_and_a_regrade_agrees"},
    "agents/test_step.py": {"test_each_checkpoint_starts_from_what_the_previous_one_left",
                            "test_a_failed_or_timed_out_step_is_a_graded_failure_and_the_next_goes_on"},
    "promptfoo/test_provider.py": {
        "test_provider_returns_output_metadata_and_latency", "test_provider_output_lists_failing_tests_with_first_message_line",
        "test_provider_infrastructure_failure_is_a_normal_response", "test_provider_paths_are_relative_to_base_path",
        "test_named_scores_and_components_match_the_counts", "test_assertion_policy_from_config_overrides_the_providers",
        "test_assertion_reads_provider_response_metadata_and_falls_back_to_runners"},
}
TESTS_DIR = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = item.path.relative_to(TESTS_DIR).as_posix() if item.path.is_relative_to(TESTS_DIR) else ""
        if module in TOOLCHAIN_RUNS:
            names = TOOLCHAIN_RUNS[module]
            if names is None or getattr(item, "originalname", item.name) in names:
                item.add_marker(pytest.mark.toolchain)
