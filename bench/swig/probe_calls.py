# SPDX-License-Identifier: MIT
"""The probe's calls, for bench/swig/modes.sh.

    probe_calls.py calls MODULE CLASS METHOD N   call METHOD N times
    probe_calls.py facts MODULE CLASS            what a user sees, as JSON
    probe_calls.py uninit MODULE CLASS           a method of an object whose
                                                 __init__ never ran
"""
import importlib
import json
import sys


def cls_of(module, name):
    return getattr(importlib.import_module("probe." + module), name)


def calls(cls, method, n):
    f = getattr(cls(), method)
    one = 1
    if method == "get0":
        for _ in range(n):
            f()
    elif method == "get1":
        for _ in range(n):
            f(one)
    else:
        for _ in range(n):
            f(one, one)


def facts(cls):
    obj = cls()
    extra = sorted(set(dir(obj)) - set(dir(object())) - {"get0", "get1", "get2", "__dict__", "__module__", "__weakref__"})
    return {
        "text_signature": getattr(getattr(cls, "get1"), "__text_signature__", None),
        "doc_starts": (getattr(cls, "get1").__doc__ or "")[:6],
        "extra_attributes": extra,
        "has_dict": hasattr(obj, "__dict__"),
    }


def main(argv):
    what, module, name = argv[1:4]
    cls = cls_of(module, name)
    if what == "calls":
        calls(cls, argv[4], int(argv[5]))
    elif what == "facts":
        print(json.dumps(facts(cls)))
    else:
        obj = cls.__new__(cls)
        try:
            obj.get0()
        except Exception as exc:  # the outcome we print, whatever it is
            print(type(exc).__name__)
        else:
            print("returned")


if __name__ == "__main__":
    main(sys.argv)
