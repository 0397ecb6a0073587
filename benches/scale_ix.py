#!/usr/bin/env python3
"""Writes the ix catalog scaled to about N tools (for benches/run.sh): every ix tool, with its
steps, output blocks and schemas, copied with a numbered suffix until there are N, each
toolset listing every copy of its tools. Nothing is simplified, so the scaled catalog prints
the warnings a real one this large does (the toolset budgets).

    scale_ix.py N OUT_DIR     # writes OUT_DIR/ix-N.yaml and the icon beside it
"""
import os
import shutil
import sys

import yaml

n, out = int(sys.argv[1]), sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "catalog")
catalog = yaml.safe_load(open(os.path.join(src, "ix.yaml")))
tools = catalog["tools"]
copies = max(1, round(n / len(tools)))

def copy(tool, k):
    t = dict(tool)
    t["name"] = f"{tool['name']}-{k}"
    t.pop("renamed_from", None)
    return t

catalog["tools"] = [copy(t, k) for k in range(copies) for t in tools]
for ts in catalog["toolsets"].values():
    ts["tools"] = [f"{name}-{k}" for k in range(copies) for name in ts["tools"]]
icon = catalog["product"].get("icon")
if icon:
    shutil.copy(os.path.join(src, icon), os.path.join(out, os.path.basename(icon)))
    catalog["product"]["icon"] = os.path.basename(icon)
path = os.path.join(out, f"ix-{n}.yaml")
with open(path, "w") as f:
    yaml.safe_dump(catalog, f, sort_keys=False, allow_unicode=True, width=1000)
print(path)
