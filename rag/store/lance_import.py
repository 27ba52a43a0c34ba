"""Import LanceDB without first building its REST client's API classes (~1 s a process).

`import lancedb` imports lance_namespace, which needs the models of the generated REST client
(lance_namespace_urllib3_client). That package's __init__ also builds all nine API classes —
pydantic's validate_call on about a thousand methods — which only a remote (REST) namespace
uses. A command line that opens a local directory or a bucket pays for them on every start.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

REST_CLIENT = "lance_namespace_urllib3_client"


def defer_rest_client() -> None:
    """Register the REST client package so that its __init__ runs only when a name of it is used.

    Its submodules (the models lance_namespace imports) still load normally through its path;
    the first attribute asked of the package itself runs the real __init__, so nothing that
    uses the client sees a difference. Does nothing once the package is imported.
    """
    if REST_CLIENT in sys.modules:
        return
    spec = importlib.util.find_spec(REST_CLIENT)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = importlib.util.module_from_spec(spec)

    def finish_import(name: str) -> object:
        # Removed first, so names looked up while the real __init__ runs resolve normally.
        del package.__dict__["__getattr__"]
        assert spec.loader is not None
        spec.loader.exec_module(package)
        return _attribute(package, name)

    package.__dict__["__getattr__"] = finish_import
    sys.modules[REST_CLIENT] = package


def _attribute(package: ModuleType, name: str) -> object:
    try:
        return package.__dict__[name]
    except KeyError:
        raise AttributeError(f"module {package.__name__!r} has no attribute {name!r}") from None
