#!/usr/bin/env python3
"""End-to-end tests of the vmaf tool: spawn the binary, check exit statuses,
stderr lines, report files (parsed with json / xml / csv modules) and scores.

usage: test_cli.py VMAF_BINARY BADINPUTS_DIR [--golden golden.json --vectors DIR]
                   [--models DIR] [--only NAME] [--parity-all] [--backend B]
                   [--sanitize S] [--cpumask-spy LIB]

The tests are unittest test cases, one module a topic (test_<topic>.py);
this runs them with unittest's runner, those whose name contains --only
when it is given, and ends with the count of checks, "N/M checks passed".
Exit status 0, 1 when a check failed or a test broke, 77 when every test
that ran could only skip, 1 when no check ran at all.
"""
import sys
import tempfile
import unittest

import clitest
import test_bad_inputs
import test_basics
import test_formats
import test_frames
import test_models
import test_output_checks
import test_parity
import test_pipes
import test_reports
import test_signals
import test_threads

TOPICS = [test_basics, test_formats, test_reports, test_bad_inputs, test_signals, test_pipes,
          test_output_checks, test_frames, test_models, test_parity, test_threads]


def selected(only):
    """Every test of the topics, or those whose name contains `only`."""
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for topic in TOPICS:
        for case in loader.loadTestsFromModule(topic):
            for test in case:
                if not only or only in test._testMethodName:
                    suite.addTest(test)
    return suite


def main():
    a = clitest.parse_args(sys.argv[1:])
    clitest.configure(a)
    suite = selected(a.only)
    with tempfile.TemporaryDirectory(prefix="vmaf_cli_") as tmp:
        clitest.state.base = tmp
        result = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
    st = clitest.state
    print(f"{st.checks - len(st.failures)}/{st.checks} checks passed")
    if st.checks == 0:
        if st.skips:
            return 77  # every test that ran was skipped, and said why
        print("no check ran: --only matched no test, or a data option is missing",
              file=sys.stderr)
        return 1
    return 0 if result.wasSuccessful() and not st.failures else 1


if __name__ == "__main__":
    sys.exit(main())
