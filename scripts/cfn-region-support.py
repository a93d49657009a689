"""What each Region lacks of a template, by cfn-lint's own Region data.

Usage: python3 scripts/cfn-region-support.py TEMPLATE...

Prints one JSON object: the cfn-lint version, and for each template and each Region cfn-lint
knows, the resource types the Region does not have and the properties its schema of a type does
not know (what cfn-lint reports as E3006 and E3002 for that Region). The msgbridge region list
(`npm run docs:regions`) is derived from it.
"""

import json
import sys

import cfnlint
from cfnlint.helpers import REGIONS
from cfnlint.schema import PROVIDER_SCHEMA_MANAGER


def lacks(template, region):
    problems = set()
    for resource in template.get("Resources", {}).values():
        kind = resource.get("Type", "")
        if kind.startswith("Custom::") or kind == "AWS::CDK::Metadata":
            continue
        try:
            schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema(region, kind)
        except Exception:  # cfn-lint raises ResourceNotFoundError for a type a Region lacks
            problems.add(f"{kind} does not exist")
            continue
        known = schema.schema.get("properties", {})
        for name in resource.get("Properties") or {}:
            if name not in known:
                problems.add(f"{kind}.{name} is not supported")
    return sorted(problems)


def main(paths):
    version = getattr(cfnlint, "__version__", None)
    if version is None:
        from cfnlint.version import __version__ as version
    result = {"cfnLintVersion": version, "templates": {}}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            template = json.load(handle)
        result["templates"][path] = {region: lacks(template, region) for region in REGIONS}
    json.dump(result, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
