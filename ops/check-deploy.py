#!/usr/bin/env python3
"""Checks the Kubernetes manifests in deploy/k8s, without a cluster.

Why: no cluster runs here or in CI, so nothing ever applies these files. A field the API does not
have, a misspelled kind, a volume mounted under a name no volume has, a flag the program does
not take or a query on a metric the coordinator no longer exports would only show on someone's
cluster. This stands in for applying them.

What it checks, in every manifest in deploy/k8s:
  * Kubernetes kinds against Kubernetes' own OpenAPI schemas, with kubernetes-validate in its
    strict mode (a field the API does not have is an error), for every Kubernetes version the
    installed kubernetes-validate ships schemas for. Its command line only warns about a kind it
    has no schema for and exits 0; here that is an error, but for the two kinds below.
  * KEDA's ScaledObject, a custom resource kubernetes-validate has no schema for: against
    SCALED_OBJECT below, a schema written here from KEDA's ScaledObject specification (fields,
    required ones, the prometheus trigger's metadata), as strict as the rest. The
    HorizontalPodAutoscaler KEDA makes from it is then validated as a Kubernetes one.
  * kustomization.yaml: its fields; it lists every manifest but OPTIONAL; its images are the
    images the manifests use; the base `kubectl kustomize` renders from it validates too (only
    where kubectl is installed: it is not a Debian package, so a machine without it skips that).
  * What the schemas cannot see: each volumeMount names a volume of its pod, each claim is one
    defined here, each named port in a probe or Service exists, selectors match their pods, each
    absolute path in a container's arguments lies on one of its mounts, each flag is one the
    program declares (read from its Swift source), and each Secret and Secret key is one
    docs/kubernetes.md creates.
  * The autoscalers' metrics (KEDA's query, the HPA's External metric): each farm_* name is one
    Sources/Coordinator/HTTP/MetricsText.swift exports, and each label value one it writes.

Prints one line per problem and exits 1, or a summary line and exits 0; exit 2 when something it
relies on cannot be read. Runs with the tests' venv, where ops/setup-tests.sh installs
kubernetes-validate:  .build/otio-venv/bin/python3 ops/check-deploy.py [-v]
"""
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys

try:
    import jsonschema
    import yaml
    from kubernetes_validate import utils as kubernetes_validate
    from kubernetes_validate.version import __version__ as VALIDATOR_VERSION
except ImportError as error:
    print(f"check-deploy: {error}; run it with .build/otio-venv/bin/python3 (ops/setup-tests.sh installs it)",
          file=sys.stderr)
    sys.exit(2)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPLOY = "deploy/k8s"
DOC = "docs/kubernetes.md"
METRICS = "Sources/Coordinator/HTTP/MetricsText.swift"
COUNTERS = "Sources/Shared/Store/FarmStore+Counters.swift"
# Manifests applied on their own, outside the kustomization.
OPTIONAL = {"postgres.yaml", "keda-scaledobject.yaml", "hpa-external.yaml"}
# The Swift files declaring the flags of what each image runs: (image, subcommand) -> files.
PROGRAMS = {
    ("farm-coordinator", "serve"): ["Sources/Coordinator/CLI/Commands/Serve.swift",
                                    "Sources/Coordinator/CLI/Commands/DatabaseOptions.swift"],
    ("farm-worker", None): ["Sources/Worker/Main/WorkerCommand.swift"],
}
KUSTOMIZATION_FIELDS = {"apiVersion", "kind", "namespace", "resources", "images", "labels", "namePrefix",
                        "nameSuffix", "patches", "replicas", "components", "configMapGenerator",
                        "secretGenerator", "generatorOptions"}

# KEDA's ScaledObject (keda.sh/v1alpha1, KEDA 2.x), from its ScaledObject specification and its
# prometheus scaler's parameters. Every object closed, like kubernetes-validate's strict schemas;
# `behavior` is checked afterwards as the HorizontalPodAutoscaler KEDA makes.
INTEGER = {"type": "integer", "minimum": 0}
NUMBER_TEXT = {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?$"}
BOOLEAN_TEXT = {"enum": ["true", "false"]}
SCALED_OBJECT = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "keda.sh/v1alpha1"},
        "kind": {"const": "ScaledObject"},
        "metadata": {
            "type": "object",
            "required": ["name"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"},
                "namespace": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
        "spec": {
            "type": "object",
            "required": ["scaleTargetRef", "triggers"],
            "additionalProperties": False,
            "properties": {
                "scaleTargetRef": {
                    "type": "object",
                    "required": ["name"],
                    "additionalProperties": False,
                    "properties": {key: {"type": "string"} for key in
                                   ("apiVersion", "kind", "name", "envSourceContainerName")},
                },
                "pollingInterval": {"type": "integer", "minimum": 1},
                "cooldownPeriod": INTEGER,
                "initialCooldownPeriod": INTEGER,
                "idleReplicaCount": INTEGER,
                "minReplicaCount": INTEGER,
                "maxReplicaCount": {"type": "integer", "minimum": 1},
                "fallback": {
                    "type": "object",
                    "required": ["failureThreshold", "replicas"],
                    "additionalProperties": False,
                    "properties": {"failureThreshold": {"type": "integer", "minimum": 1}, "replicas": INTEGER},
                },
                "advanced": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "restoreToOriginalReplicaCount": {"type": "boolean"},
                        "horizontalPodAutoscalerConfig": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {"name": {"type": "string"}, "behavior": {"type": "object"}},
                        },
                        "scalingModifiers": {
                            "type": "object",
                            "required": ["target", "formula"],
                            "additionalProperties": False,
                            "properties": {key: {"type": "string"} for key in
                                           ("target", "activationTarget", "metricType", "formula")},
                        },
                    },
                },
                "triggers": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["type", "metadata"],
                        "additionalProperties": False,
                        "properties": {
                            "type": {"type": "string"},
                            "name": {"type": "string"},
                            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                            "authenticationRef": {
                                "type": "object",
                                "required": ["name"],
                                "additionalProperties": False,
                                "properties": {
                                    "name": {"type": "string"},
                                    "kind": {"enum": ["TriggerAuthentication", "ClusterTriggerAuthentication"]},
                                },
                            },
                            "metricType": {"enum": ["AverageValue", "Value", "Utilization"]},
                            "useCachedMetrics": {"type": "boolean"},
                        },
                    },
                },
            },
        },
    },
}
PROMETHEUS_METADATA = {
    "type": "object",
    "required": ["serverAddress", "query", "threshold"],
    "additionalProperties": False,
    "properties": {
        "serverAddress": {"type": "string", "pattern": r"^https?://[^\s]+$"},
        "query": {"type": "string", "minLength": 1},
        "threshold": NUMBER_TEXT,
        "activationThreshold": NUMBER_TEXT,
        "ignoreNullValues": BOOLEAN_TEXT,
        "unsafeSsl": BOOLEAN_TEXT,
        "namespace": {"type": "string"},
        "customHeaders": {"type": "string"},
        "queryParameters": {"type": "string"},
        "authModes": {"type": "string"},
        "timeout": {"type": "string"},
    },
}
# Values Kubernetes' OpenAPI schemas leave as any string: quantities (resource.Quantity's syntax)
# and the enumerations of the fields these manifests use, by path (list items as []).
QUANTITY = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$")
QUANTITY_PATHS = re.compile(r"(resources\.(requests|limits)\.[^.]+|\.sizeLimit|\.target\.(averageValue|value))$")
ENUMS = {
    r"spec\.strategy\.type": {"Recreate", "RollingUpdate"},
    r"spec\.updateStrategy\.type": {"RollingUpdate", "OnDelete"},
    r"\.containers\[\]\.imagePullPolicy": {"Always", "IfNotPresent", "Never"},
    r"\.accessModes\[\]": {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"},
    r"\.securityContext\.fsGroupChangePolicy": {"OnRootMismatch", "Always"},
    r"\.seccompProfile\.type": {"RuntimeDefault", "Localhost", "Unconfined"},
    r"\.ports\[\]\.protocol": {"TCP", "UDP", "SCTP"},
    r"^spec\.type": {"ClusterIP", "NodePort", "LoadBalancer", "ExternalName"},
    r"spec\.metrics\[\]\.type": {"External", "Resource", "Pods", "Object", "ContainerResource"},
    r"\.target\.type": {"AverageValue", "Value", "Utilization"},
    r"\.policies\[\]\.type": {"Pods", "Percent"},
    r"\.selectPolicy": {"Max", "Min", "Disabled"},
    r"\.matchExpressions\[\]\.operator": {"In", "NotIn", "Exists", "DoesNotExist"},
}
# Kinds kubernetes-validate has no schema for, and what checks them here instead.
CUSTOM_KINDS = {("keda.sh/v1alpha1", "ScaledObject"), ("kustomize.config.k8s.io/v1beta1", "Kustomization")}


class Unreadable(Exception):
    pass


def read(path):
    try:
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise Unreadable(f"{path}: {error.strerror}")


def documents(path):
    try:
        return [doc for doc in yaml.safe_load_all(read(path)) if doc]
    except yaml.YAMLError as error:
        raise Unreadable(f"{path}: not YAML: {error}")


def name_of(resource):
    return f"{str(resource.get('kind', '?')).lower()}/{resource.get('metadata', {}).get('name', '?')}"


def image_name(image):
    """`registry/path/farm-worker:tag` -> `farm-worker`."""
    return image.rsplit("/", 1)[-1].split("@")[0].split(":")[0]


class Report:
    def __init__(self):
        self.problems = {}

    def add(self, where, message, version=None):
        self.problems.setdefault((where, message), set()).add(version)

    def print(self, versions):
        for (where, message), seen in sorted(self.problems.items()):
            seen.discard(None)
            if seen and seen != set(versions):
                message += f" (Kubernetes {', '.join(sorted(seen, key=kubernetes_validate.Version))})"
            print(f"{where}: {message}")
        return len(self.problems)


# ---------------------------------------------------------------- schemas

def check_values(value, where, report, path=""):
    """Quantities and enumerations, which the schemas take as any string."""
    if isinstance(value, dict):
        for key, item in value.items():
            check_values(item, where, report, f"{path}.{key}" if path else str(key))
        return
    if isinstance(value, list):
        for item in value:
            check_values(item, where, report, path + "[]")
        return
    if QUANTITY_PATHS.search(path) and not (isinstance(value, (int, float)) or QUANTITY.match(str(value))):
        report.add(where, f"{path}: {value!r} is not a Kubernetes quantity (e.g. 500m, 2, 1Gi)")
    for pattern, allowed in ENUMS.items():
        if re.search(pattern + "$", path) and value not in allowed:
            report.add(where, f"{path}: {value!r} is not one of {', '.join(sorted(allowed))}")


def validate_kubernetes(resource, where, versions, report):
    check_values(resource, where, report)
    for version in versions:
        try:
            kubernetes_validate.validate(resource, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            path = ".".join(str(part) for part in error.path) or "(top)"
            report.add(where, f"{path}: {error.message}", version)
        except kubernetes_validate.SchemaNotFoundError:
            report.add(where, f"no Kubernetes schema for kind {resource.get('kind')} of "
                              f"apiVersion {resource.get('apiVersion')} (a misspelling, or a custom "
                              f"resource this script does not know)", version)


def validate_scaled_object(resource, where, versions, report):
    validator = jsonschema.Draft202012Validator(SCALED_OBJECT)
    errors = list(validator.iter_errors(resource))
    for error in errors:
        path = ".".join(str(part) for part in error.path) or "(top)"
        report.add(where, f"{path}: {error.message} (KEDA's ScaledObject)")
    if errors:
        return
    spec = resource["spec"]
    low, high = spec.get("minReplicaCount", 0), spec.get("maxReplicaCount", 100)
    if low > high:
        report.add(where, f"spec.minReplicaCount {low} > spec.maxReplicaCount {high}")
    if "fallback" in spec and spec["fallback"]["replicas"] > high:
        report.add(where, f"spec.fallback.replicas {spec['fallback']['replicas']} > spec.maxReplicaCount {high}")
    metrics = []
    for index, trigger in enumerate(spec["triggers"]):
        if trigger["type"] != "prometheus":
            report.add(where, f"spec.triggers[{index}]: type {trigger['type']}: only prometheus is checked here")
            continue
        for error in jsonschema.Draft202012Validator(PROMETHEUS_METADATA).iter_errors(trigger["metadata"]):
            path = ".".join(str(part) for part in error.path)
            report.add(where, f"spec.triggers[{index}].metadata{'.' + path if path else ''}: {error.message} "
                              f"(KEDA's prometheus trigger)")
        metrics.append({"type": "External", "external": {
            "metric": {"name": f"s{index}-prometheus"},
            "target": {"type": trigger.get("metricType", "AverageValue"),
                       ("value" if trigger.get("metricType") == "Value" else "averageValue"):
                           trigger["metadata"].get("threshold", "0")}}})
    # The HorizontalPodAutoscaler KEDA makes: the behavior and the target as Kubernetes reads them.
    target = spec["scaleTargetRef"]
    made = {
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": f"keda-hpa-{resource['metadata']['name']}"},
        "spec": {
            "scaleTargetRef": {"apiVersion": target.get("apiVersion", "apps/v1"),
                               "kind": target.get("kind", "Deployment"), "name": target["name"]},
            "minReplicas": max(low, 1), "maxReplicas": high, "metrics": metrics,
        },
    }
    behavior = spec.get("advanced", {}).get("horizontalPodAutoscalerConfig", {}).get("behavior")
    if behavior is not None:
        made["spec"]["behavior"] = behavior
    validate_kubernetes(made, f"{where} (the HorizontalPodAutoscaler KEDA makes)", versions, report)


# ---------------------------------------------------------------- what the schemas cannot see

def secrets_documented():
    """Secret name -> its keys, from the `kubectl create secret generic` commands in the doc."""
    text = re.sub(r"\\\n\s*", " ", read(DOC))
    secrets = {}
    for match in re.finditer(r"create secret generic ([\w.-]+)([^\n]*)", text):
        keys = secrets.setdefault(match.group(1), set())
        for key, path in re.findall(r"--from-file=(?:([\w.-]+)=)?(\S+)", match.group(2)):
            keys.add(key or os.path.basename(path))
        keys.update(re.findall(r"--from-literal=([\w.-]+)=", match.group(2)))
    if not secrets:
        raise Unreadable(f"{DOC}: no `kubectl create secret generic` command found")
    return secrets


def program_flags():
    spec = importlib.util.spec_from_file_location("check_documented", os.path.join(ROOT, "ops/check-documented.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    flags = {}
    for program, paths in PROGRAMS.items():
        names = {"--help", "-h"}
        for path in paths:
            try:
                visible, hidden = module.help_flags(path, read(path))
            except module.Unreadable as error:
                raise Unreadable(str(error))
            names |= set(visible) | set(hidden)
        flags[program] = names
    return flags


def pod_templates(resources):
    """(where, resource, pod spec, pod labels, claim templates) of each Deployment and StatefulSet."""
    for where, resource in resources:
        if resource.get("kind") in ("Deployment", "StatefulSet"):
            spec = resource.get("spec", {})
            template = spec.get("template", {})
            claims = {claim.get("metadata", {}).get("name") for claim in spec.get("volumeClaimTemplates", [])}
            yield where, resource, template.get("spec", {}), template.get("metadata", {}).get("labels", {}), claims


def check_references(resources, secrets, flags, report):
    claims = {resource["metadata"]["name"] for _, resource in resources
              if resource.get("kind") == "PersistentVolumeClaim"}
    pods = list(pod_templates(resources))
    for where, resource, pod, labels, templates in pods:
        selector = resource.get("spec", {}).get("selector", {}).get("matchLabels", {})
        if any(labels.get(key) != value for key, value in selector.items()):
            report.add(where, "spec.selector.matchLabels does not match the pod template's labels")
        volumes = {volume.get("name"): volume for volume in pod.get("volumes", [])}
        for name, volume in volumes.items():
            claim = volume.get("persistentVolumeClaim", {}).get("claimName")
            if claim is not None and claim not in claims:
                report.add(where, f"volume {name}: no PersistentVolumeClaim {claim} in {DEPLOY}")
            secret = volume.get("secret", {}).get("secretName")
            if secret is not None and secret not in secrets:
                report.add(where, f"volume {name}: Secret {secret} is not created in {DOC}")
        for container in pod.get("containers", []):
            at = f"{where}: container {container.get('name')}"
            ports = {port.get("name") for port in container.get("ports", [])}
            mounts = {}
            for mount in container.get("volumeMounts", []):
                if mount.get("name") not in volumes and mount.get("name") not in templates:
                    report.add(at, f"volumeMount {mount.get('name')}: the pod has no such volume")
                mounts[mount.get("mountPath", "").rstrip("/")] = volumes.get(mount.get("name"), {})
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                for kind in ("httpGet", "tcpSocket"):
                    port = container.get(probe, {}).get(kind, {}).get("port")
                    if isinstance(port, str) and port not in ports:
                        report.add(at, f"{probe}: no container port named {port}")
            for variable in container.get("env", []):
                reference = variable.get("valueFrom", {}).get("secretKeyRef")
                if reference and reference.get("key") not in secrets.get(reference.get("name"), set()):
                    report.add(at, f"env {variable.get('name')}: Secret {reference.get('name')} with key "
                                   f"{reference.get('key')} is not created in {DOC}")
            check_arguments(at, container, mounts, flags, secrets, report)
    services = {resource["metadata"]["name"] for _, resource in resources if resource.get("kind") == "Service"}
    for where, resource in resources:
        kind, spec = resource.get("kind"), resource.get("spec", {})
        if kind == "StatefulSet" and spec.get("serviceName") not in services:
            report.add(where, f"spec.serviceName {spec.get('serviceName')}: no such Service in {DEPLOY}")
        if kind == "Service":
            selector = spec.get("selector", {})
            chosen = [pod for _, _, pod, labels, _ in pods
                      if all(labels.get(key) == value for key, value in selector.items())]
            if not chosen:
                report.add(where, "spec.selector matches no pod template in " + DEPLOY)
            names = {port.get("name") for pod in chosen for container in pod.get("containers", [])
                     for port in container.get("ports", [])}
            for port in spec.get("ports", []):
                if isinstance(port.get("targetPort"), str) and chosen and port["targetPort"] not in names:
                    report.add(where, f"port {port.get('name')}: its pods have no port named {port['targetPort']}")
        if kind in ("ScaledObject", "HorizontalPodAutoscaler"):
            target = spec.get("scaleTargetRef", {}).get("name")
            if not any(r.get("kind") == "Deployment" and r["metadata"]["name"] == target for _, r in resources):
                report.add(where, f"spec.scaleTargetRef: no Deployment {target} in {DEPLOY}")


def check_arguments(at, container, mounts, flags, secrets, report):
    """Flags the program declares, and absolute paths that lie on a mount (a key file on a Secret's key)."""
    image, arguments = image_name(container.get("image", "")), list(container.get("args", []))
    command = arguments[0] if arguments and not arguments[0].startswith("-") else None
    program = (image, command) if (image, command) in flags else (image, None) if (image, None) in flags else None
    if program is None:
        if image.startswith("farm"):
            report.add(at, f"image {image} {command or ''}: this script does not know its flags (PROGRAMS)")
        return
    if program[1] is not None:
        arguments = arguments[1:]
    for argument in arguments:
        argument = str(argument)
        if argument.startswith("-"):
            if argument.split("=", 1)[0] not in flags[program]:
                report.add(at, f"{argument}: {' '.join(filter(None, program))} has no such flag")
        elif argument.startswith("/"):
            mount = max((path for path in mounts if argument == path or argument.startswith(path + "/")),
                        key=len, default=None)
            if mount is None:
                report.add(at, f"{argument}: on none of the container's volumeMounts")
                continue
            secret = mounts[mount].get("secret")
            key = argument[len(mount) + 1:]
            if secret and key and key not in secrets.get(secret.get("secretName"), set()):
                report.add(at, f"{argument}: Secret {secret.get('secretName')} has no key {key} in {DOC}")


# ---------------------------------------------------------------- metrics

def exported_metrics():
    """Metric name -> {label: values, or None for any value} of what the coordinator's /metrics writes."""
    text = read(METRICS)
    calls = list(re.finditer(r'metric\(\s*"(farm_\w+)"', text))
    if not calls:
        raise Unreadable(f"{METRICS}: no metric(\"farm_...\") call found")
    metrics = {}
    for index, call in enumerate(calls):
        body = text[call.end():calls[index + 1].start() if index + 1 < len(calls) else len(text)]
        labels = {}
        for label, value in re.findall(r'\{(\w+)="(\w+)"\}', body):
            labels.setdefault(label, set()).add(value)
        for enum, label in re.findall(r'(\w+)\.allCases\.map\s*\{\s*\(#"\{(\w+)="', body):
            labels.setdefault(label, set()).update(enum_values(enum))
        for label in re.findall(r'\{(\w+)="\\#\(', body):
            labels.setdefault(label, None)
        metrics[call.group(1)] = labels
    for name in re.findall(r'"(farm_\w+)"', read(COUNTERS)):
        for suffix in ("", "_bucket", "_sum", "_count"):
            metrics.setdefault(name + suffix, {"le": None} if suffix == "_bucket" else {})
    return metrics


def enum_values(name):
    for path in glob.glob(os.path.join(ROOT, "Sources", "**", "*.swift"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        match = re.search(r"\benum\s+" + name + r"\b[^{]*\{(.*?)\n\}", text, re.S)
        if match:
            values = []
            for case in re.findall(r"^\s*case\s+([^\n/]+)", match.group(1), re.M):
                for part in case.split(","):
                    raw = re.search(r'=\s*"([^"]*)"', part)
                    values.append(raw.group(1) if raw else part.strip())
            return values
    raise Unreadable(f"no enum {name} in Sources/")


def check_selector(where, name, matchers, metrics, report):
    """matchers: (label, operator, values) triples; = and In / =~ with plain alternatives only."""
    if name not in metrics:
        report.add(where, f"{name}: not a metric {METRICS} exports")
        return
    for label, operator, values in matchers:
        known = metrics[name]
        if label not in known:
            report.add(where, f"{name}{{{label}=...}}: {name} has no label {label}")
        elif known[label] is not None and operator in ("=", "=~", "In"):
            for value in values:
                if value not in known[label]:
                    report.add(where, f'{name}{{{label}="{value}"}}: {name} never has {label} "{value}" '
                                      f"(it writes {', '.join(sorted(known[label]))})")


def check_query(where, query, metrics, report):
    for match in re.finditer(r"\b(farm_\w+)\s*(\{[^}]*\})?", query):
        matchers = []
        for label, operator, value in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"', match.group(2) or ""):
            if operator in ("=~", "!~") and not re.fullmatch(r"[\w|]+", value):
                report.add(where, f'{match.group(1)}{{{label}{operator}"{value}"}}: write plain alternatives '
                                  "(a|b), which this check can read")
            matchers.append((label, operator, value.split("|") if operator in ("=~", "!~") else [value]))
        check_selector(where, match.group(1), matchers, metrics, report)


def check_metrics(resources, metrics, report):
    for where, resource in resources:
        spec = resource.get("spec", {})
        if resource.get("kind") == "ScaledObject":
            for trigger in spec.get("triggers", []):
                if trigger.get("type") == "prometheus" and "query" in trigger.get("metadata", {}):
                    check_query(where, trigger["metadata"]["query"], metrics, report)
        if resource.get("kind") == "HorizontalPodAutoscaler":
            for metric in spec.get("metrics", []):
                if metric.get("type") != "External":
                    continue
                described = metric.get("external", {}).get("metric", {})
                selector = described.get("selector", {})
                matchers = [(label, "=", [value]) for label, value in selector.get("matchLabels", {}).items()]
                matchers += [(expression.get("key"), expression.get("operator"), expression.get("values", []))
                             for expression in selector.get("matchExpressions", [])]
                check_selector(where, described.get("name"), matchers, metrics, report)


# ---------------------------------------------------------------- kustomization

def check_kustomization(files, resources, versions, report, notes):
    where = f"{DEPLOY}/kustomization.yaml"
    kustomization = next((r for w, r in resources if w.startswith(where)), None)
    if kustomization is None:
        report.add(where, "missing")
        return
    for field in sorted(set(kustomization) - KUSTOMIZATION_FIELDS):
        report.add(where, f"{field}: not a field this check knows a Kustomization to have")
    listed = kustomization.get("resources", [])
    for entry in listed:
        if not os.path.isfile(os.path.join(ROOT, DEPLOY, entry)):
            report.add(where, f"resources: {entry} does not exist")
    for name in sorted(set(files) - set(listed) - OPTIONAL - {"kustomization.yaml"}):
        report.add(where, f"resources: {name} is neither listed nor one of the optional files (OPTIONAL)")
    for name in sorted(OPTIONAL & set(listed)):
        report.add(where, f"resources: {name} is optional and applied on its own; it must not be listed")
    used = {image_name(container.get("image", "")) for w, r, pod, _, _ in pod_templates(resources)
            if os.path.basename(w.split(":")[0]) in listed for container in pod.get("containers", [])}
    for image in kustomization.get("images", []):
        if image.get("name") not in used:
            report.add(where, f"images: {image.get('name')} is not an image of the base's containers")
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        notes.append("kubectl not found: the base `kubectl kustomize` renders was not checked")
        return
    build = subprocess.run([kubectl, "kustomize", os.path.join(ROOT, DEPLOY)], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
    if build.returncode != 0:
        report.add(where, f"kubectl kustomize failed: {build.stderr.strip()}")
        return
    rendered = [doc for doc in yaml.safe_load_all(build.stdout) if doc]
    for resource in rendered:
        at = f"{where} (rendered): {name_of(resource)}"
        validate_kubernetes(resource, at, versions, report)
        if resource.get("metadata", {}).get("namespace") != kustomization.get("namespace"):
            report.add(at, f"rendered outside the namespace {kustomization.get('namespace')}")
    notes.append(f"kubectl kustomize rendered {len(rendered)} resources")


# ---------------------------------------------------------------- main

def main(argv):
    verbose = "-v" in argv
    report, notes = Report(), []
    versions = kubernetes_validate.all_versions()
    try:
        files = sorted(os.path.basename(path) for path in glob.glob(os.path.join(ROOT, DEPLOY, "*.yaml")))
        if not files:
            raise Unreadable(f"{DEPLOY}: no manifests")
        resources = []
        for name in files:
            for resource in documents(f"{DEPLOY}/{name}"):
                resources.append((f"{DEPLOY}/{name}: {name_of(resource)}", resource))
        secrets = secrets_documented()
        flags = program_flags()
        metrics = exported_metrics()
    except Unreadable as error:
        print(f"check-deploy: cannot read what it checks: {error}", file=sys.stderr)
        return 2
    for where, resource in resources:
        kind = (resource.get("apiVersion"), resource.get("kind"))
        if kind == ("keda.sh/v1alpha1", "ScaledObject"):
            validate_scaled_object(resource, where, versions, report)
        elif kind not in CUSTOM_KINDS:
            validate_kubernetes(resource, where, versions, report)
        if verbose:
            print(f"checked {where}")
    check_references(resources, secrets, flags, report)
    check_metrics(resources, metrics, report)
    check_kustomization(files, resources, versions, report, notes)
    failures = report.print(versions)
    for note in notes:
        print(f"check-deploy: {note}")
    if failures:
        print(f"check-deploy: {failures} problem(s) in {DEPLOY}", file=sys.stderr)
        return 1
    print(f"check-deploy: {len(resources)} resources in {len(files)} files valid "
          f"(kubernetes-validate {VALIDATOR_VERSION}, strict, Kubernetes {versions[0]} to {versions[-1]}; "
          f"ScaledObject by this script's schema)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
