#!/usr/bin/python3
"""Generates sim/wire_types_table.cpp: how encoding/json writes the k8s.io/api types kube-sim
serves (every field's JSON name, Go shape and omitempty/omitzero tag), read from the Go sources.

Run once per Kubernetes release, by hand, with git clones of kubernetes/api and
kubernetes/apimachinery (any clone holding the release tag):

    sim/gen_wire_types.py --api ../api --apimachinery ../apimachinery --tag v0.35.7 \
        > sim/wire_types_table.cpp

It reads the tagged blobs with `git show` (no checkout needed). The parser knows just enough Go
for these files: `type X struct { ... }` blocks with json tags, named types (`type PodPhase
string`), import aliases. A shape it does not know is an error, so a new release cannot slip a
field past it silently.
"""

import argparse
import datetime
import re
import subprocess
import sys

# The kinds kube-sim serves, by (group, version) -> package in kubernetes/api.
API_PACKAGES = {
    ("", "v1"): "core/v1",
    ("apps", "v1"): "apps/v1",
    ("batch", "v1"): "batch/v1",
    ("autoscaling", "v1"): "autoscaling/v1",
    ("autoscaling", "v2"): "autoscaling/v2",
    ("coordination.k8s.io", "v1"): "coordination/v1",
    ("events.k8s.io", "v1"): "events/v1",
    ("policy", "v1"): "policy/v1",
    ("networking.k8s.io", "v1"): "networking/v1",
    ("rbac.authorization.k8s.io", "v1"): "rbac/v1",
    ("authentication.k8s.io", "v1"): "authentication/v1",
    ("authorization.k8s.io", "v1"): "authorization/v1",
}
ROOT_KINDS = {
    ("", "v1"): ["Namespace", "Node", "Pod", "Event", "ConfigMap", "Secret", "ServiceAccount",
                 "Service", "Endpoints", "PersistentVolumeClaim", "PersistentVolume"],
    ("apps", "v1"): ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"],
    ("batch", "v1"): ["Job", "CronJob"],
    ("autoscaling", "v1"): ["HorizontalPodAutoscaler", "Scale"],
    ("autoscaling", "v2"): ["HorizontalPodAutoscaler"],
    ("coordination.k8s.io", "v1"): ["Lease"],
    ("events.k8s.io", "v1"): ["Event"],
    ("policy", "v1"): ["PodDisruptionBudget"],
    ("networking.k8s.io", "v1"): ["Ingress", "NetworkPolicy"],
    ("rbac.authorization.k8s.io", "v1"): ["Role", "ClusterRole", "RoleBinding",
                                          "ClusterRoleBinding"],
    # Answered, never stored: the API server still encodes them from these types.
    ("authentication.k8s.io", "v1"): ["TokenRequest", "SelfSubjectReview", "TokenReview"],
    ("authorization.k8s.io", "v1"): ["SelfSubjectAccessReview", "SelfSubjectRulesReview",
                                     "SubjectAccessReview"],
}

# Types with their own MarshalJSON, by package/name -> (shape, what the zero value writes).
CUSTOM = {
    "meta/v1.Time": "kTime",            # zero -> null (Time.MarshalJSON)
    "meta/v1.MicroTime": "kTime",       # zero -> null (MicroTime.MarshalJSON)
    "meta/v1.Duration": "kDuration",    # zero -> "0s" (Duration.MarshalJSON)
    "meta/v1.FieldsV1": "kRaw",         # nil Raw -> null (FieldsV1.MarshalJSON)
    "runtime.RawExtension": "kRaw",     # nil Raw -> null (RawExtension.MarshalJSON)
    "resource.Quantity": "kQuantity",   # zero -> "0" (Quantity.MarshalJSON)
    "intstr.IntOrString": "kIntOrString",  # zero -> 0 (IntOrString.MarshalJSON)
}
SCALARS = {
    "string": "kString", "bool": "kBool",
    "int": "kNumber", "int32": "kNumber", "int64": "kNumber", "uint32": "kNumber",
    "uint64": "kNumber", "float64": "kNumber", "float32": "kNumber", "byte": "kNumber",
}
# Import paths -> (repository, package directory).
IMPORTS = {
    "k8s.io/apimachinery/pkg/apis/meta/v1": ("apimachinery", "pkg/apis/meta/v1", "meta/v1"),
    "k8s.io/apimachinery/pkg/api/resource": ("apimachinery", "pkg/api/resource", "resource"),
    "k8s.io/apimachinery/pkg/util/intstr": ("apimachinery", "pkg/util/intstr", "intstr"),
    "k8s.io/apimachinery/pkg/types": ("apimachinery", "pkg/types", "types"),
    "k8s.io/apimachinery/pkg/runtime": ("apimachinery", "pkg/runtime", "runtime"),
}
for package in API_PACKAGES.values():
    IMPORTS["k8s.io/api/" + package] = ("api", package, package)


class Repo:
    def __init__(self, path, tag):
        self.path, self.tag = path, tag

    def files(self, directory):
        out = subprocess.run(["git", "-C", self.path, "ls-tree", "--name-only",
                              f"{self.tag}:{directory}"], capture_output=True, text=True,
                             check=True).stdout.split()
        return [f"{directory}/{name}" for name in out
                if name.endswith(".go") and not name.endswith("_test.go")
                and not name.startswith("zz_generated") and "generated" not in name]

    def read(self, path):
        return subprocess.run(["git", "-C", self.path, "show", f"{self.tag}:{path}"],
                              capture_output=True, text=True, check=True).stdout


FIELD = re.compile(r'^\s*(?:(\w+)\s+)?([\w.*\[\]]+)\s*(?:`(.*)`)?\s*$')


class Package:
    """The named types of one Go package: structs (fields) and others (underlying type)."""

    def __init__(self, repo, directory, name):
        self.name = name
        self.structs = {}   # type -> (file, [(go name, go type, json tag)])
        self.named = {}     # type -> underlying go type
        self.aliases = {}   # import alias -> package name, per file (merged: k8s uses one)
        for path in repo.files(directory):
            self._parse(path, repo.read(path))

    def _parse(self, path, text):
        text = re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", text), flags=re.S)
        for block in re.finditer(r"import\s*\((.*?)\)", text, re.S):
            for line in block.group(1).splitlines():
                m = re.match(r'\s*(\w+)?\s*"([^"]+)"', line)
                if m and m.group(2) in IMPORTS:
                    alias = m.group(1) or m.group(2).rsplit("/", 1)[1]
                    self.aliases[alias] = IMPORTS[m.group(2)][2]
        for m in re.finditer(r"^type\s+(\w+)\s+struct\s*\{\s*\}", text, re.M):
            self.structs[m.group(1)] = (path, [])
        for m in re.finditer(r"^type\s+(\w+)\s+struct\s*\{[ \t]*\n(.*?)^\}", text, re.S | re.M):
            fields = []
            for line in m.group(2).splitlines():
                if not line.strip():
                    continue
                f = FIELD.match(line)
                if not f:  # an error only if a served kind reaches this type
                    fields = f"{path}: cannot parse field line in {m.group(1)}: {line!r}"
                    break
                fields.append((f.group(1) or "", f.group(2), f.group(3) or ""))
            self.structs[m.group(1)] = (path, fields)
        for m in re.finditer(r"^type\s+(\w+)\s+(=\s*)?([\w.*\[\]]+)\s*$", text, re.M):
            if m.group(3) != "struct":
                self.named[m.group(1)] = m.group(3)


class Generator:
    def __init__(self, repos):
        self.packages = {}
        for repo_name, directory, name in IMPORTS.values():
            self.packages[name] = Package(repos[repo_name], directory, name)
        self.types = []   # [(qualified name, file, [field rows])]
        self.index = {}   # qualified name -> index

    def qualify(self, package, go_type):
        if "." in go_type:
            alias, name = go_type.split(".", 1)
            if alias not in package.aliases:
                raise SystemExit(f"{package.name}: unknown package alias in {go_type}")
            return self.packages[package.aliases[alias]], name
        return package, go_type

    def shape(self, package, go_type):
        """(kind, element struct's qualified name or None) of a Go type."""
        if go_type == "[]byte":
            return "kSlice", None
        if go_type.startswith("*"):
            _, element = self.shape(package, go_type[1:])
            return "kPointer", element
        if go_type.startswith("[]"):
            _, element = self.shape(package, go_type[2:])
            return "kSlice", element
        if go_type.startswith("map["):
            value = go_type[go_type.index("]") + 1:]
            _, element = self.shape(package, value)
            return "kMap", element
        if go_type in SCALARS:
            return SCALARS[go_type], None
        owner, name = self.qualify(package, go_type)
        qualified = f"{owner.name}.{name}"
        if qualified in CUSTOM:
            return CUSTOM[qualified], None
        if name in owner.structs:
            return "kStruct", self.add(owner, name)
        if name in owner.named:
            return self.shape(owner, owner.named[name])
        raise SystemExit(f"unknown Go type {go_type} in {package.name}")

    def add(self, package, name):
        qualified = f"{package.name}.{name}"
        if qualified in self.index:
            return qualified
        self.index[qualified] = len(self.types)
        entry = [qualified, package.structs[name][0], []]
        self.types.append(entry)
        entry[2] = self.fields(package, name)
        return qualified

    def fields(self, package, name):
        rows = []
        declared = package.structs[name][1]
        if isinstance(declared, str):
            raise SystemExit(declared)
        for go_name, go_type, tag in declared:
            json_tag = re.search(r'json:"([^"]*)"', tag)
            options = json_tag.group(1).split(",") if json_tag else [go_name]
            if options[0] == "-":
                continue
            embedded_name = go_type.lstrip("*").rsplit(".", 1)[-1]
            if not go_name and options[0] in ("", embedded_name):  # promoted fields
                owner, embedded = self.qualify(package, go_type.lstrip("*"))
                rows.extend(self.fields(owner, embedded))
                continue
            go_name = go_name or embedded_name
            json_name = options[0] or go_name
            omitzero = "omitzero" in options
            omitempty = "omitempty" in options
            kind, element = self.shape(package, go_type)
            if omitzero and kind not in ("kTime", "kPointer", "kString", "kNumber", "kBool"):
                raise SystemExit(f"{name}.{go_name}: omitzero on {go_type} is not handled")
            tag_kind = "kOmitZero" if omitzero else "kOmitEmpty" if omitempty else "kNone"
            source = f'{go_name} {go_type} json:"{json_tag.group(1)}"' if json_tag else go_name
            rows.append((json_name, kind, tag_kind, element, source))
        return rows

    def emit(self, tags):
        for (group, version), kinds in ROOT_KINDS.items():
            package = self.packages[API_PACKAGES[(group, version)]]
            for kind in kinds:
                self.add(package, kind)
        out = []
        today = datetime.date.today().isoformat()
        out.append(f"// Generated by sim/gen_wire_types.py on {today} from kubernetes/api {tags['api']}")
        out.append(f"// and kubernetes/apimachinery {tags['apimachinery']}: how encoding/json writes every field of")
        out.append("// the built-in kinds kube-sim stores. Each row quotes its Go declaration (field, type, json")
        out.append("// tag) from the file named above its type. Do not edit: run the script for a new release.")
        out.append("// clang-format off")
        out.append('#include "sim/wire_types.hpp"')
        out.append("")
        out.append("namespace rg::sim::wire {")
        out.append("namespace {")
        out.append("using enum Shape;")
        out.append("using enum Tag;")
        out.append("")
        out.append("constexpr Field kFields[] = {")
        offsets = []
        at = 0
        for qualified, path, rows in self.types:
            rows = sorted(rows, key=lambda row: row[0])
            offsets.append((at, len(rows)))
            out.append(f"    // {qualified} ({path})")
            for json_name, kind, tag_kind, element, source in rows:
                index = self.index[element] if element else -1
                out.append(f'    {{"{json_name}", {kind}, {tag_kind}, {index}}},  // {source}')
            at += len(rows)
        out.append("};")
        out.append("")
        out.append("}  // namespace")
        out.append("")
        out.append("constexpr Type kTypes[] = {")
        for (qualified, path, _), (first, count) in zip(self.types, offsets):
            out.append(f'    {{"{qualified}", {{kFields + {first}, {count}}}}},')
        out.append("};")
        out.append("")
        out.append("constexpr Root kRoots[] = {")
        for (group, version), kinds in ROOT_KINDS.items():
            package = API_PACKAGES[(group, version)]
            for kind in kinds:
                out.append(f'    {{"{group}", "{version}", "{kind}", '
                           f'{self.index[package + "." + kind]}}},')
        out.append("};")
        out.append("")
        out.append("// Constant-initialised: usable from any static initialiser.")
        out.append("constexpr std::span<const Type> types{kTypes};")
        out.append("constexpr std::span<const Root> roots{kRoots};")
        out.append("")
        out.append("}  // namespace rg::sim::wire")
        return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--api", required=True, help="git clone of kubernetes/api")
    parser.add_argument("--apimachinery", required=True, help="git clone of apimachinery")
    parser.add_argument("--tag", required=True, help="release tag, e.g. v0.35.7")
    args = parser.parse_args()
    repos = {"api": Repo(args.api, args.tag), "apimachinery": Repo(args.apimachinery, args.tag)}
    sys.stdout.write(Generator(repos).emit({"api": args.tag, "apimachinery": args.tag}))


if __name__ == "__main__":
    main()
