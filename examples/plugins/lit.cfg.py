"""lit configuration for FileCheck tests of your own pass plugins: a recipe to copy.

Put this file in the folder of your tests (here ``examples/plugins/``, next to the plugin
``custom_pass.py`` and its test ``drop-noop-alu.mlir``) and run, in the environment where
vta-mlir is installed::

    lit -v examples/plugins

Every ``.mlir`` file of the folder (and its subfolders) is a test: its ``// RUN:`` lines run in
a shell with ``%s`` the file, ``%S`` its folder and ``%t`` a scratch path, and pass when every
command exits with status 0.  Load the plugin in them by path, relative to the test::

    // RUN: vta-opt --load-pass-plugin %S/custom_pass.py -p vta-drop-noop-alu %s | filecheck %s

lit runs the tests with a scrubbed environment, so the lines below put the folder of the
Python running lit first on ``PATH`` and name ``vta-opt``, ``vta-run`` and ``filecheck`` by
their absolute paths there: the tests use the vta-mlir of that environment, not another one
found on ``PATH``.
"""

# ruff: noqa: F821 - `config` is injected by lit

import os
import shutil
import sys

import lit.formats

config.name = "vta-mlir-plugins"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "Output"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root

bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
# Plugins named here are loaded by every vta-mlir tool a test runs.
for name in ("VTA_MLIR_PASS_PLUGINS", "PYTHONPATH", "HOME"):
    if name in os.environ:
        config.environment[name] = os.environ[name]


def _tool(name: str) -> str:
    """Absolute path of a console script of this environment, else the bare name."""
    path = os.path.join(bin_dir, name)
    if os.path.exists(path):
        return path
    return shutil.which(name, path=config.environment["PATH"]) or name


# A program name standing alone in a RUN line (not part of a longer name or a path).
for program in ("vta-opt", "vta-run", "filecheck"):
    config.substitutions.append((rf"(?<![\w./-]){program}(?![\w./-])", _tool(program)))
