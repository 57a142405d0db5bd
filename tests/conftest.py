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
    "test_cases_compat.py": {
        "test_reference_solutions_get_full_marks",
        "test_a_wrong_submission_gets_the_grade_of_scbench_scoring",
    },
    "test_cases_runner.py": {
        "test_every_example_agent_of_the_case_problems_gets_its_expected_counts",
        "test_a_failing_case_shows_its_diff_and_weights_in_every_output",
        "test_same_case_results_under_none_bubblewrap_and_docker",
        "test_a_loader_that_raises_is_bad_input_naming_the_script_and_case",
        "test_a_verifier_that_raises_on_one_case_makes_that_case_an_error",
        "test_a_case_s_timeout_kills_it_and_the_run_goes_on",
        "test_select_runs_only_the_named_cases_and_refuses_unknown_ids",
    },
    "test_js_snapshots.py": None,
    "test_scbench_environment.py": None,
    "test_cases_fresh_state.py": {
        "test_no_cli_case_sees_what_an_earlier_case_left",
        "test_a_group_that_is_not_isolated_keeps_its_home_until_the_group_ends",
        "test_each_group_s_server_starts_from_the_same_state",
        "test_no_process_the_submission_can_read_shows_the_harness_s_environment",
    },
    "test_cases_deadlines.py": {
        "test_an_api_case_that_is_answered_a_byte_at_a_time_fails_at_its_timeout",
        "test_a_health_check_answered_a_byte_at_a_time_ends_at_the_start_up_deadline",
    },
    "test_cases_outside.py": None,
    "sandbox/test_python_versions.py": None,
    "test_submission_limits.py": {
        "test_a_solution_kept_inside_the_problem_runs_but_not_one_holding_the_tests"
    },
    "test_full_disk.py": None,
    "test_examples.py": None,
    "test_blame.py": {
        "test_a_broken_problem_is_a_problem_error_naming_its_file_and_line",
        "test_a_submission_that_breaks_the_load_is_still_a_graded_failure",
        "test_the_cli_exits_4_and_says_which_file_broke",
        "test_a_broken_js_problem_is_a_problem_error",
        "test_a_js_submission_that_breaks_the_load_is_a_graded_failure",
        "test_a_repository_problems_laid_test_file_is_the_problems_and_its_module_the_repositorys",
    },
    "test_repository_runs.py": None,
    "test_repository_projects.py": None,
    "test_real_repositories.py": {
        "test_inflection_graded_by_its_own_suite_matches_pytest_test_by_test"
    },
    "hostile/test_hostile.py": None,
    "hostile/test_scan.py": {"test_the_engine_puts_the_flags_on_the_result"},
    "batch/test_batch_cli.py": {
        "test_unknown_problems_are_reported_not_fatal",
        "test_a_broken_problem_is_a_problem_error_cell_and_exit_4_and_evaluate_says_so_too",
    },
    "test_cli.py": {
        "test_met_policy_exits_0_and_prints_the_table",
        "test_unmet_policy_exits_1_and_lists_failures",
        "test_evaluate_keeps_every_name_whole_piped_or_narrow",
        "test_infrastructure_failure_exits_3",
        "test_evaluate_runs_every_checkpoint_and_prints_solve_results",
    },
    "agents/test_agent_cli.py": {
        "test_solve_runs_every_checkpoint_and_prints_the_table",
        "test_batch_runs_the_agents_file_then_grades_and_a_regrade_agrees",
    },
    "agents/test_step.py": {
        "test_each_checkpoint_starts_from_what_the_previous_one_left",
        "test_a_failed_or_timed_out_step_is_a_graded_failure_and_the_next_goes_on",
    },
    "test_quality.py": {"test_the_command_line_shows_the_figures_and_can_turn_them_off"},
    "report/test_report_page.py": {
        "test_the_page_of_a_batch_shows_the_matrix_the_curves_and_the_code_figures",
        "test_a_report_of_results_without_figures_says_so",
        "test_the_batch_summary_has_the_code_quality_of_the_last_checkpoint",
        "test_a_batch_of_agents_shows_their_cost_tokens_and_failed_steps",
    },
    "promptfoo/test_provider.py": {
        "test_named_scores_carry_the_code_quality_figures_and_not_the_score",
        "test_the_row_links_its_line_on_the_evals_report_page",
        "test_provider_returns_output_metadata_and_latency",
        "test_provider_output_is_a_verdict_and_the_counts_per_group",
        "test_provider_infrastructure_failure_is_a_normal_response",
        "test_provider_paths_are_relative_to_base_path",
        "test_named_scores_and_components_match_the_counts",
        "test_assertion_policy_from_config_overrides_the_providers",
        "test_assertion_reads_provider_response_metadata_and_falls_back_to_runners",
    },
}
TESTS_DIR = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = (
            item.path.relative_to(TESTS_DIR).as_posix()
            if item.path.is_relative_to(TESTS_DIR)
            else ""
        )
        if module in TOOLCHAIN_RUNS:
            names = TOOLCHAIN_RUNS[module]
            if names is None or getattr(item, "originalname", item.name) in names:
                item.add_marker(pytest.mark.toolchain)
