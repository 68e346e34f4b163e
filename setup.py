# SPDX-License-Identifier: MIT
"""Build of the ``kfifo`` Python package: setuptools for the package and its
metadata (pyproject.toml), CMake for the extension ``kfifo._kfifo``.

``build_ext`` configures the top-level ``CMakeLists.txt`` with
``KFIFO_PYTHON=ON`` and builds its target ``kfifo_ext`` (libkfifo.a, the
binding's C and the SWIG wrapper; CMakeLists.txt says how) into the place
setuptools installs from.  It all goes to ``build/python/<interpreter>`` of
the source tree, e.g. ``build/python/cpython-312`` (or
``$KFIFO_BUILD_BASE``), nothing to a shared temporary directory.
``CMAKE_ARGS`` adds CMake options, e.g. ``-DKFIFO_ASAN=ON -DKFIFO_UBSAN=ON``
(scripts/test-binding-asan.sh); ``CFLAGS`` reach every C file
(scripts/check-gcc14.sh).  Each set of them, and each Python, gets a CMake
build directory of its own, so variants never mix.  CMake and SWIG come from
PyPI (build requirements), or from ``PATH``.  The version is read from
``c/include/kfifo.h``, as CMake reads it.
"""
import hashlib
import os
import re
import shlex
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def read_version() -> str:
    with open(os.path.join(HERE, "c", "include", "kfifo.h"), encoding="utf-8") as f:
        parts = dict(re.findall(r"^#define KFIFO_VERSION_(MAJOR|MINOR|PATCH) (\d+)$", f.read(), re.M))
    return "%s.%s.%s" % (parts["MAJOR"], parts["MINOR"], parts["PATCH"])


def build_base() -> str:
    # one per interpreter: bdist_wheel's staging directory and egg-info live
    # here, so two Pythons building wheels from one tree at once (the
    # release check does) must not share it
    default = os.path.join(HERE, "build", "python", sys.implementation.cache_tag)
    base = os.path.abspath(os.environ.get("KFIFO_BUILD_BASE") or default)
    os.makedirs(base, exist_ok=True)  # egg_info wants it to exist
    return base


def pypi_tools() -> tuple:
    """The cmake command and SWIG's -D options, from the PyPI packages if installed."""
    cmake, swig = "cmake", []
    try:
        import cmake as cmake_pkg

        cmake = os.path.join(cmake_pkg.CMAKE_BIN_DIR, "cmake")
    except ImportError:
        pass
    try:
        import swig as swig_pkg  # sets SWIG_LIB to the library it ships

        swig = ["-DSWIG_EXECUTABLE=" + os.path.join(swig_pkg.BIN_DIR, "swig"),
                "-DSWIG_DIR=" + os.environ["SWIG_LIB"]]
    except ImportError:
        pass
    return cmake, swig


class CMakeBuildExt(build_ext):
    def build_extension(self, ext: Extension) -> None:
        cmake, swig = pypi_tools()
        user = shlex.split(os.environ.get("CMAKE_ARGS", ""))
        key = repr((user, os.environ.get("CFLAGS"), os.environ.get("CC")))
        build_dir = os.path.join(os.path.abspath(self.build_temp),
                                 "cmake-" + hashlib.sha1(key.encode()).hexdigest()[:10])
        out_dir = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        subprocess.check_call([
            cmake, "-S", HERE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
            "-DKFIFO_BUILD_TESTS=OFF", "-DKFIFO_INSTALL=OFF", "-DBUILD_SHARED_LIBS=OFF",
            "-DKFIFO_PYTHON=ON", "-DKFIFO_PYTHON_REQUIRE_EXTENSION=ON",
            "-DKFIFO_PYTHON_INCLUDE_DIR=" + sysconfig.get_paths()["include"],
            "-DKFIFO_PYTHON_EXT_SUFFIX=" + sysconfig.get_config_var("EXT_SUFFIX"),
            "-DKFIFO_PY_GIL_THRESHOLD=" + os.environ.get("KFIFO_GIL_THRESHOLD", ""),
            "-DCMAKE_LIBRARY_OUTPUT_DIRECTORY=" + out_dir,
        ] + swig + user)
        subprocess.check_call([cmake, "--build", build_dir, "--target", "kfifo_ext",
                               "-j", str(self.parallel or os.cpu_count() or 1)])


setup(
    version=read_version(),
    ext_modules=[Extension("kfifo._kfifo", sources=[])],  # CMakeBuildExt builds it
    # the specification the installed header and kfifo.model's docstrings
    # cite by section; cmake --install puts it in the same place
    data_files=[("share/doc/kfifo", ["docs/spec.md"])],
    cmdclass={"build_ext": CMakeBuildExt},
    options={"build": {"build_base": build_base()}, "egg_info": {"egg_base": build_base()}},
)
