"""Shared fixtures: an offline environment and tiny COMET models built on the fly."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``-n 2``) each worker, and each process it starts, computes on one thread: two
    workers of torch's default two threads on two cores would make every small operation wait for a core."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        os.environ.setdefault("MKL_NUM_THREADS", "1")
        if "torch" in sys.modules:  # set before torch is imported, the variables are enough
            sys.modules["torch"].set_num_threads(1)


@pytest.fixture(scope="session", autouse=True)
def offline_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No network and a private docmetrics cache for the whole session."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        mp.setenv("DOCMETRICS_CACHE", str(tmp_path_factory.mktemp("docmetrics-cache")))
        yield


def _tiny_comet(tmp_path_factory: pytest.TempPathFactory, kind: str) -> Path:
    from docmetrics_backbones.comet.testing import build_tiny_comet

    return build_tiny_comet(tmp_path_factory.mktemp(f"tiny-comet-{kind}"), kind=kind, seed=0)


@pytest.fixture(scope="session")
def tiny_kiwi_dir(offline_env: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CometKiwi-like UnifiedMetric (mt+src, CLS pooling)."""
    return _tiny_comet(tmp_path_factory, "unified")


@pytest.fixture(scope="session")
def tiny_comet_da_dir(offline_env: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wmt22-comet-da-like RegressionMetric (src, mt, ref; average pooling)."""
    return _tiny_comet(tmp_path_factory, "regression")


@pytest.fixture(scope="session")
def tiny_comet_qe_dir(offline_env: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A COMET-QE-like ReferencelessRegression (src, mt; average pooling)."""
    return _tiny_comet(tmp_path_factory, "referenceless")


# -- the quick tier: `pytest -m "not slow"` -----------------------------------------------------------------------
#: modules whose tests build or load models (tiny COMET, BERTScore, mBART, MT5, causal LMs, MiniLM), drive Chromium,
#: build wheels or start worker processes: the whole suite runs them, the quick tier leaves them out
SLOW_MODULES = {
    "test_asd", "test_bench_gpu", "test_bertscore_backbone", "test_comet_backbone", "test_doc_bertscore",
    "test_doc_comet", "test_doc_prism", "test_embed", "test_engine_workers", "test_engines", "test_frictions_round3",
    "test_hostile_checkpoints", "test_llm_backbone", "test_metricx_backbone", "test_prism_backbone",
    "test_quickstart", "test_readme", "test_report_browser", "test_report_browser_views", "test_slide", "test_startup", "test_testing",
    "test_wheel_contents", "test_docs_examples", "test_golden", "test_quiet",
}
#: single tests that took about 3 s or more in `-m "not slow" --durations` runs on 2 busy cores (2026-11-27): real
#: releases (../shared), subprocess round trips, Ray and worker pools, hypothesis searches, whole-package import scans
SLOW_TESTS = {
    "test_readme_real_data.py::test_a_readme_command_on_the_release_prints_what_the_readme_shows",
    "test_wmt26_clusters.py::test_wmt24_esa_file_equals_the_script",
    "test_wmt26_release.py::test_release_system_files_read",
    "test_fuzz_parsers.py::test_a_spec_formats_and_parses_back",
    "test_fuzz_parsers.py::test_the_signature_parser_parses_or_raises_spec_error",
    "test_fuzz_parsers.py::test_a_parameter_converts_or_raises_spec_error",
    "test_plots.py::test_heatmap_explains_cells_outside_a_triangular_grid",
    "test_asd_segment.py::test_short_model_slide_cuts_paragraphs_asd_segment_cuts_nothing",
    "test_cache_faults.py::test_stdout_on_a_full_disk_is_exit_2",
    "test_cli.py::test_subprocess_entry_points",
    "test_cli_habits.py::test_a_real_pipe",
    "test_cli_habits.py::test_a_signal_while_it_waits_stops_it_in_one_line",
    "test_cli_mtme.py::test_human_seg_level_reports_spa_and_acc_eq_as_mtme_does",
    "test_cli_mtme.py::test_metaeval_several_language_pairs_averages_and_plot",
    "test_cli_mtme.py::test_wmt21_ted_round_trip",
    "test_fuzz_parsers.py::test_a_signature_formats_and_parses_back",
    "test_fuzz_parsers.py::test_load_builds_a_metric_or_raises_spec_or_plugin_error",
    "test_fuzz_parsers.py::test_the_spec_parser_parses_or_raises_spec_error",
    "test_genmt_release.py::test_chrf_on_the_real_release_equals_an_independent_computation",
    "test_genmt_release.py::test_the_fixture_has_every_shape_of_the_real_release",
    "test_golden.py::test_output_is_the_golden_one",
    "test_hardening.py::test_asd_warns_about_an_english_aligner_on_en_de_and_counts_unaligned_sentences",
    "test_hardening.py::test_sweep_json_keeps_numbers_and_the_heatmap_has_a_data_scale_and_a_portable_title",
    "test_human_clusters.py::test_cli_text_json_and_agreement",
    "test_human_clusters.py::test_wmt24_esa_en_cs_clusters",
    "test_human_clusters.py::test_wmt24_rule_equals_scipy_by_hand",
    "test_judging_api.py::test_autorank_and_compare_systems_equal_the_command",
    "test_judging_api.py::test_import_and_read_human_import_no_torch",
    "test_judging_api.py::test_the_issues_check_on_a_genmt_fixture_equals_the_command",
    "test_judging_api.py::test_the_issues_check_on_wmt24_esa_en_cs_equals_the_command",
    "test_judging_output.py::test_a_skipped_comparison_says_what_each_metric_scores",
    "test_layers.py::test_each_layer_imports_only_from_itself_and_below",
    "test_layers.py::test_no_import_cycle_between_core_modules",
    "test_layers.py::test_no_private_name_is_used_across_modules",
    "test_layers.py::test_no_process_wide_mutable_state_in_the_core",
    "test_layers.py::test_nothing_but_the_cli_imports_the_cli",
    "test_layers.py::test_the_core_imports_no_model_library",
    "test_llm_judging.py::test_asd_and_gemba_on_a_tiny_llm_are_meta_evaluated_on_genmt",
    "test_metaeval.py::test_cli_system_level_json_equals_scipy",
    "test_mtme.py::test_wmt21_ted_as_mtme",
    "test_mtme_wmt25.py::test_wmt25_round_trip",
    "test_plots.py::test_every_value_label_lies_beyond_its_bar_end_inside_the_panel",
    "test_plots.py::test_metaeval_plot_names_every_bar_by_its_spec",
    "test_plugin_faults.py::test_in_a_fresh_process_too",
    "test_quiet.py::test_transformers_logging_only_with_debug",
    "test_registry.py::test_listing_imports_no_plugin_and_no_torch",
    "test_runtime.py::test_a_sweep_of_6_points_on_2_ray_actors_builds_the_model_once_per_actor",
    "test_runtime.py::test_asd_max_tokens_reaches_every_call_of_one_model_as_aligner_and_scorer",
    "test_runtime.py::test_asd_max_tokens_reaches_every_call_on_ray",
    "test_session_closed.py::test_a_closed_session_does_not_start_its_workers_again",
    "test_stat_table.py::test_the_three_sources_give_the_same_json",
    "test_stat_table.py::test_the_three_sources_print_the_same_tables",
    "test_unit_records.py::test_worker_processes_carry_the_records",
    # builds a tiny COMET and scores with it (importing COMET alone takes seconds)
    "test_xcomet_spans.py::test_other_checkpoints_give_no_spans_and_keep_their_signature",
}
#: fixtures that build a model: a test asking for one is slow wherever it lives
SLOW_FIXTURES = {"tiny_kiwi_dir", "tiny_comet_da_dir", "tiny_comet_qe_dir", "tiny_mbart", "short_mbart", "minilm_dir",
                 "da_model", "qe_model", "kiwi_metric", "comet_model", "comet_models", "xcomet"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if getattr(item, "module", None) else ""
        test = item.nodeid.split("[", 1)[0].replace("tests/", "", 1)
        if module in SLOW_MODULES or test in SLOW_TESTS or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``-m "not slow"``, a module whose every test is slow is not even imported (some import COMET,
    which alone takes seconds)."""
    if (config.getoption("markexpr", "") or "").replace(" ", "") == "notslow" and collection_path.stem in SLOW_MODULES:
        return True
    return None
