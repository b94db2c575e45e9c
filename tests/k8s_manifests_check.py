#!/usr/bin/env python3
"""Checks the deployment files against each other and against the server,
offline (no cluster, no podman): deploy/k8s/*.yaml, docker/*.Dockerfile,
docker/compose.yaml and `kbench-server --help`.

  - every manifest has apiVersion, kind, metadata.name, the kbench namespace,
    and is listed in kustomization.yaml, except namespace.yaml, which is
    applied apart so that `kubectl delete -k` never deletes the volumes;
  - a schema check (the fields each kind may have, kubeconform-like, for the
    kinds used here), the restricted Pod Security Standard on every pod, the
    recommended labels, no service-account token, no floating image tag,
    secret volumes not readable by others, and kustomization's images:;
  - every long-running container has startup, readiness and liveness probes
    on a port it declares (the server's: grpc probes of the --health-listen
    port, liveness on the server as a whole, not the readiness signal), and
    cpu and memory requests and limits; PostgreSQL's probes go over TCP;
  - the server asks for nvidia.com/gpu (requests equal to limits), runs the
    CUDA image with --backend=cuda and an explicit --shutdown-grace shorter
    than its termination grace, and no PodDisruptionBudget pretends to
    cover a DaemonSet;
  - NetworkPolicy: ingress denied by default, the health port admitted to no
    pod, PostgreSQL only to the servers and the backup; --store asks for TLS;
  - a Service that reaches outside the cluster exposes only the gRPC port,
    which serves TLS;
  - the alert rules and the Grafana dashboard name only metrics the server
    exports (server/metrics);
  - no Secret is written in the manifests and no secret-looking variable has
    a literal value; every Secret referenced is one deploy/README.md creates;
  - every kbench image is built by a docker/NAME.Dockerfile, its container
    ports are that Dockerfile's EXPOSE ports and its user the Dockerfile's;
  - every server flag in the manifests, the compose file and the Dockerfiles'
    CMD is one `kbench-server --help` lists; --listen and --http use the
    declared ports; --store names the PostgreSQL Service; compose publishes
    an --insecure server's ports on loopback only;
  - every Service selects pods and targets ports they declare.

Usage: k8s_manifests_check.py KBENCH_SERVER_BINARY   (ctest: k8s_manifests)
"""
import glob
import json
import os
import re
import subprocess
import sys
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
K8S = os.path.join(ROOT, "deploy", "k8s")
NAMESPACE = "kbench"
WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet")
APPLIED_APART = "namespace.yaml"
RECOMMENDED_LABELS = ("app.kubernetes.io/name", "app.kubernetes.io/instance",
                      "app.kubernetes.io/component", "app.kubernetes.io/part-of",
                      "app.kubernetes.io/version", "app.kubernetes.io/managed-by")
SECRET_NAME = re.compile(r"(PASSWORD|TOKEN|SECRET|KEY)", re.I)
# postgresql://[user[:password]@]host[:port]/db[?params]
POSTGRES_URL = re.compile(r"postgres(?:ql)?://(?:(?P<user>[^:@/]*)(?::(?P<password>[^@/]*))?@)?"
                          r"(?P<host>[^:/?]+)(?::(?P<port>\d+))?/")
# The shortest --host-lease-seconds a server sharing a PostgreSQL store may
# state: a PostgreSQL failover (tens of seconds) must not end the runs of
# servers that are alive.
MIN_SHARED_LEASE_SECONDS = 30
KBENCH_IMAGE = re.compile(r"(?:^|/)kbench-([a-z0-9-]+)(?::[\w.-]+)?$")


def load_manifests():
    """{file name: [documents]} of deploy/k8s/*.yaml."""
    manifests = {}
    for path in sorted(glob.glob(os.path.join(K8S, "*.yaml"))):
        with open(path) as f:
            manifests[os.path.basename(path)] = [d for d in yaml.safe_load_all(f) if d]
    return manifests


def parse_dockerfile(text):
    """The parts of a Dockerfile the manifests must agree with."""
    expose = set()
    for line in re.findall(r"^EXPOSE\s+(.+)$", text, re.M):
        expose.update(int(p.split("/")[0]) for p in line.split())
    user = re.findall(r"^USER\s+(\d+)(?::(\d+))?\s*$", text, re.M)
    cmd = re.findall(r"^CMD\s+(\[.*\])\s*$", text, re.M)
    return {"expose": expose,
            "uid": int(user[-1][0]) if user else None,
            "cmd": json.loads(cmd[-1]) if cmd else []}


def load_dockerfiles():
    dockerfiles = {}
    for path in glob.glob(os.path.join(ROOT, "docker", "*.Dockerfile")):
        with open(path) as f:
            dockerfiles[os.path.basename(path)[:-len(".Dockerfile")]] = parse_dockerfile(f.read())
    return dockerfiles


def server_flags(binary):
    """The long flags `kbench-server --help` lists (its subcommands' too)."""
    text = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", text))


def flag_names(args):
    return [a.split("=", 1)[0] for a in args if a.startswith("--")]


def flag_value(args, flag):
    for i, a in enumerate(args):
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
        if a == flag and i + 1 < len(args):
            return args[i + 1]
    return None


def port_of(address):
    return int(address.rsplit(":", 1)[1]) if address and ":" in address else None


def pod_templates(docs):
    """(where, workload, pod template) of every workload."""
    for doc in docs:
        if doc.get("kind") in WORKLOADS:
            yield f"{doc['kind']}/{doc['metadata']['name']}", doc, doc["spec"]["template"]


def check_basics(manifests, errors):
    kustomization = manifests.get("kustomization.yaml", [{}])[0]
    listed = set(kustomization.get("resources", []))
    for name, docs in manifests.items():
        if name == "kustomization.yaml":
            continue
        if name == APPLIED_APART:
            if name in listed:
                errors.append(f"{name}: listed in kustomization.yaml, so `kubectl delete -k` "
                              "deletes the namespace and its volumes")
        elif name not in listed:
            errors.append(f"{name}: not listed in kustomization.yaml resources")
        for doc in docs:
            for field in ("apiVersion", "kind"):
                if field not in doc:
                    errors.append(f"{name}: a document without {field}")
            meta = doc.get("metadata", {})
            if "name" not in meta:
                errors.append(f"{name}: {doc.get('kind')} without metadata.name")
            if doc.get("kind") != "Namespace" and meta.get("namespace") != NAMESPACE:
                errors.append(f"{name}: {doc.get('kind')}/{meta.get('name')} is not in "
                              f"namespace {NAMESPACE}")
    for missing in listed - set(manifests):
        errors.append(f"kustomization.yaml lists {missing}, which does not exist")


def check_containers(docs, dockerfiles, flags, errors):
    services = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Service"}
    for where, workload, template in pod_templates(docs):
        pod = template["spec"]
        for c in pod["containers"]:
            at = f"{where} container {c['name']}"
            ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                spec = c.get(probe)
                if not spec:
                    errors.append(f"{at}: no {probe}")
                    continue
                for kind in ("grpc", "tcpSocket", "httpGet"):
                    if kind in spec:
                        port = spec[kind]["port"]
                        if port not in ports and port not in ports.values():
                            errors.append(f"{at}: {probe} port {port} is not a declared port")
                command = spec.get("exec", {}).get("command", [])
                if command[:1] == ["pg_isready"] and "-h" not in command:
                    errors.append(f"{at}: {probe} runs pg_isready over the socket, which "
                                  "answers during initdb; give -h 127.0.0.1")
            resources = c.get("resources", {})
            for part in ("requests", "limits"):
                for r in ("cpu", "memory"):
                    if r not in resources.get(part, {}):
                        errors.append(f"{at}: no {part}.{r}")
            for env in c.get("env", []):
                if SECRET_NAME.search(env["name"]) and "value" in env:
                    errors.append(f"{at}: {env['name']} is written inline; use a secretKeyRef")
            match = KBENCH_IMAGE.search(c["image"])
            if not match:
                continue
            image = match.group(1)
            dockerfile = dockerfiles.get(image)
            if dockerfile is None:
                errors.append(f"{at}: image kbench-{image} has no docker/{image}.Dockerfile")
                continue
            if set(ports.values()) != dockerfile["expose"]:
                errors.append(f"{at}: ports {sorted(ports.values())} are not docker/{image}"
                              f".Dockerfile's EXPOSE {sorted(dockerfile['expose'])}")
            uid = pod.get("securityContext", {}).get("runAsUser")
            if uid != dockerfile["uid"]:
                errors.append(f"{at}: runAsUser {uid} is not docker/{image}.Dockerfile's "
                              f"USER {dockerfile['uid']}")
            if image.startswith("server"):
                check_server_container(at, c, image, ports, flags, services, errors,
                                       pod.get("terminationGracePeriodSeconds", 30))


def check_server_container(at, c, image, ports, flags, services, errors, pod_grace):
    args = c.get("args", [])
    for flag in flag_names(args):
        if flag not in flags:
            errors.append(f"{at}: {flag} is not a kbench-server flag")
    if port_of(flag_value(args, "--listen")) != ports.get("grpc"):
        errors.append(f"{at}: --listen does not use the grpc port {ports.get('grpc')}")
    if port_of(flag_value(args, "--health-listen")) != ports.get("health"):
        errors.append(f"{at}: --health-listen does not use the health port {ports.get('health')}")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        grpc_probe = c.get(probe, {}).get("grpc")
        if not grpc_probe or grpc_probe.get("port") != ports.get("health"):
            errors.append(f"{at}: {probe} is not a grpc probe of the health port")
    readiness = c.get("readinessProbe", {}).get("grpc", {}).get("service", "")
    liveness = c.get("livenessProbe", {}).get("grpc", {}).get("service", "")
    if readiness and liveness == readiness:
        errors.append(f"{at}: livenessProbe asks the readiness signal ({readiness}), so a slow "
                      "worker restart kills the pod; probe the server as a whole (service \"\")")
    grace = flag_value(args, "--shutdown-grace")
    if grace is None:
        errors.append(f"{at}: --shutdown-grace is implicit; give it")
    elif int(grace) >= pod_grace:
        errors.append(f"{at}: --shutdown-grace {grace} is not shorter than "
                      f"terminationGracePeriodSeconds {pod_grace}")
    if port_of(flag_value(args, "--http")) != ports.get("http"):
        errors.append(f"{at}: --http does not use the http port {ports.get('http')}")
    gpus = c.get("resources", {})
    limit = gpus.get("limits", {}).get("nvidia.com/gpu")
    if not limit or int(limit) < 1:
        errors.append(f"{at}: asks for no nvidia.com/gpu")
    elif gpus.get("requests", {}).get("nvidia.com/gpu", limit) != limit:
        errors.append(f"{at}: nvidia.com/gpu requests differ from limits")
    if limit and (image != "server-cuda" or flag_value(args, "--backend") != "cuda"):
        errors.append(f"{at}: a GPU server must run kbench-server-cuda with --backend=cuda")
    store = flag_value(args, "--store") or ""
    match = POSTGRES_URL.match(store)
    if match:
        if not re.search(r"[?&]sslmode=(require|verify-ca|verify-full)\b", store):
            errors.append(f"{at}: --store does not ask PostgreSQL for TLS (sslmode=require "
                          "or verify-full)")
        host, port = match.group("host"), int(match.group("port") or 5432)
        service = services.get(host)
        if service is None or port not in [p["port"] for p in service["spec"]["ports"]]:
            errors.append(f"{at}: --store names {host}:{port}, which no Service serves")
        if match.group("password") is not None:
            errors.append(f"{at}: --store carries a password; use PGPASSWORD from a Secret")
        # Servers sharing the store each end only their own host's runs at
        # start-up: the id must differ per server and outlive the pod.
        host_id = flag_value(args, "--host-id") or ""
        var = re.fullmatch(r"\$\((\w+)\)", host_id)
        env = {e.get("name"): e for e in c.get("env", [])}
        field = (env.get(var.group(1), {}).get("valueFrom", {}).get("fieldRef", {})
                 .get("fieldPath") if var else None)
        if field != "spec.nodeName":
            errors.append(f"{at}: a server sharing a PostgreSQL store needs "
                          "--host-id=$(VAR) with VAR the node's name (fieldRef spec.nodeName)")
        # The lease, stated: shorter than a PostgreSQL failover, and the
        # other servers would end the runs of servers that are alive.
        lease = flag_value(args, "--host-lease-seconds")
        try:
            lease_ok = lease is not None and float(lease) >= MIN_SHARED_LEASE_SECONDS
        except ValueError:
            lease_ok = False
        if not lease_ok:
            errors.append(f"{at}: a server sharing a PostgreSQL store sets "
                          f"--host-lease-seconds to {MIN_SHARED_LEASE_SECONDS} or more (got "
                          f"{lease}): a PostgreSQL failover must not end the runs of live servers")
        # Without the shared queue each node keeps a queue, fair share and
        # quota counts of its own: one node queues while another idles.
        if "--shared-queue" not in args:
            errors.append(f"{at}: servers sharing a PostgreSQL store run from one queue: "
                          "give --shared-queue")


def check_pdb_and_services(docs, errors):
    templates = [(where, t["metadata"].get("labels", {}), t["spec"]) for where, _, t in
                 pod_templates(docs)]

    def selected(selector):
        return [(w, spec) for w, labels, spec in templates
                if selector and all(labels.get(k) == v for k, v in selector.items())]

    for d in docs:
        if d.get("kind") != "PodDisruptionBudget":
            continue
        for where, _ in selected(d["spec"]["selector"].get("matchLabels")):
            if where.startswith("DaemonSet/"):
                errors.append(f"PodDisruptionBudget/{d['metadata']['name']} selects {where}: "
                              "drains ignore DaemonSet pods, so it protects nothing")
    for where, workload, _ in pod_templates(docs):
        if workload["kind"] == "DaemonSet":
            rolling = workload["spec"].get("updateStrategy", {}).get("rollingUpdate", {})
            if rolling.get("maxUnavailable") != 1:
                errors.append(f"{where}: a rollout must replace one GPU host at a time "
                              "(updateStrategy.rollingUpdate.maxUnavailable: 1)")
    for d in docs:
        if d.get("kind") != "Service":
            continue
        name = d["metadata"]["name"]
        pods = selected(d["spec"].get("selector"))
        if not pods:
            errors.append(f"Service/{name}: its selector matches no workload")
        for p in d["spec"]["ports"]:
            target = p.get("targetPort", p["port"])
            for where, spec in pods:
                declared = {q.get("name"): q["containerPort"] for c in spec["containers"]
                            for q in c.get("ports", [])}
                if target not in declared and target not in declared.values():
                    errors.append(f"Service/{name}: targetPort {target} is not a port of {where}")


def check_secrets(docs, readme, errors):
    created = set(re.findall(r"kubectl\b[^\n]*\bcreate secret \S+ (\S+)", readme))
    referenced = set()
    for d in docs:
        if d.get("kind") == "Secret":
            errors.append(f"Secret/{d['metadata']['name']} is written in the manifests; "
                          "create it with kubectl (deploy/README.md)")
    for where, _, template in pod_templates(docs):
        for c in template["spec"]["containers"]:
            for env in c.get("env", []):
                ref = env.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    referenced.add((where, ref["name"]))
        for v in template["spec"].get("volumes", []):
            if "secret" in v:
                referenced.add((where, v["secret"]["secretName"]))
    for where, name in sorted(referenced):
        if name not in created:
            errors.append(f"{where}: Secret {name} is not one deploy/README.md creates")


def check_compose_and_images(compose, dockerfiles, flags, errors):
    for name, dockerfile in dockerfiles.items():
        if name.startswith("server"):
            for flag in flag_names(dockerfile["cmd"]):
                if flag not in flags:
                    errors.append(f"docker/{name}.Dockerfile CMD: {flag} is not a "
                                  "kbench-server flag")
    for service_name, service in compose.get("services", {}).items():
        build = service.get("build", {})
        match = re.match(r"docker/(.+)\.Dockerfile$", build.get("dockerfile", ""))
        if not match:
            continue
        image = match.group(1)
        if image not in dockerfiles:
            errors.append(f"compose {service_name}: no docker/{image}.Dockerfile")
            continue
        if not image.startswith("server"):
            continue
        command = service.get("command", [])
        for flag in flag_names(command):
            if flag not in flags:
                errors.append(f"compose {service_name}: {flag} is not a kbench-server flag")
        published = {int(str(p).rsplit(":", 1)[1]) for p in service.get("ports", [])}
        if published != dockerfiles[image]["expose"]:
            errors.append(f"compose {service_name}: ports {sorted(published)} are not "
                          f"docker/{image}.Dockerfile's EXPOSE")
        for flag in ("--listen", "--http"):
            if port_of(flag_value(command, flag)) not in dockerfiles[image]["expose"]:
                errors.append(f"compose {service_name}: {flag} is not on an exposed port")
        if "--insecure" in command:
            for p in service.get("ports", []):
                if not str(p).startswith("127.0.0.1:"):
                    errors.append(f"compose {service_name}: publishes {p} of an --insecure "
                                  "server beyond loopback (port forwarding bypasses firewalls)")


# The fields each object may have, for the kinds and parts used here (a
# kubeconform-like check without a cluster): a misspelt field such as
# readinesProbe is silently ignored by the API server, so it is an error here.
SCHEMA = {
    "object": {"apiVersion", "kind", "metadata", "spec", "data", "stringData", "type"},
    "metadata": {"name", "namespace", "labels", "annotations"},
    "DaemonSet": {"selector", "updateStrategy", "template", "minReadySeconds",
                  "revisionHistoryLimit"},
    "StatefulSet": {"serviceName", "replicas", "selector", "template", "volumeClaimTemplates",
                    "updateStrategy", "podManagementPolicy", "persistentVolumeClaimRetentionPolicy",
                    "minReadySeconds", "revisionHistoryLimit"},
    "Deployment": {"replicas", "selector", "template", "strategy", "minReadySeconds",
                   "revisionHistoryLimit", "progressDeadlineSeconds"},
    "CronJob": {"schedule", "concurrencyPolicy", "successfulJobsHistoryLimit",
                "failedJobsHistoryLimit", "jobTemplate", "suspend", "startingDeadlineSeconds",
                "timeZone"},
    "Service": {"type", "clusterIP", "selector", "ports", "sessionAffinity",
                "externalTrafficPolicy", "loadBalancerSourceRanges", "publishNotReadyAddresses"},
    "NetworkPolicy": {"podSelector", "policyTypes", "ingress", "egress"},
    "PersistentVolumeClaim": {"accessModes", "resources", "storageClassName", "volumeMode"},
    "PodDisruptionBudget": {"selector", "minAvailable", "maxUnavailable"},
    "pod": {"containers", "initContainers", "volumes", "securityContext", "nodeSelector",
            "affinity", "tolerations", "terminationGracePeriodSeconds", "runtimeClassName",
            "automountServiceAccountToken", "serviceAccountName", "restartPolicy",
            "priorityClassName", "hostNetwork", "hostPID", "hostIPC", "dnsPolicy"},
    "container": {"name", "image", "imagePullPolicy", "command", "args", "env", "envFrom",
                  "ports", "startupProbe", "readinessProbe", "livenessProbe", "resources",
                  "securityContext", "volumeMounts", "lifecycle", "workingDir"},
}
KINDS_WITH_SPEC = {k for k in SCHEMA if k[0].isupper()}


def unknown_fields(where, part, value, errors):
    if isinstance(value, dict):
        for key in set(value) - SCHEMA[part]:
            errors.append(f"{where}: unknown field {key} in {part}")


def check_schema(docs, errors):
    for d in docs:
        kind = d.get("kind")
        where = f"{kind}/{d.get('metadata', {}).get('name')}"
        unknown_fields(where, "object", d, errors)
        unknown_fields(where, "metadata", d.get("metadata", {}), errors)
        if kind in KINDS_WITH_SPEC:
            unknown_fields(where, kind, d.get("spec", {}), errors)
        elif "spec" in d and kind not in ("Namespace",):
            errors.append(f"{where}: kind {kind} is not one the schema check knows")
    for where, _, template in pod_templates(docs):
        pod = template["spec"]
        unknown_fields(where, "pod", pod, errors)
        for c in pod.get("containers", []) + pod.get("initContainers", []):
            unknown_fields(f"{where} container {c.get('name')}", "container", c, errors)


def pod_templates_all(docs):
    """Workloads' and CronJobs' pod templates."""
    yield from pod_templates(docs)
    for doc in docs:
        if doc.get("kind") == "CronJob":
            yield (f"CronJob/{doc['metadata']['name']}", doc,
                   doc["spec"]["jobTemplate"]["spec"]["template"])


def check_pod_security(docs, errors):
    """The restricted Pod Security Standard (the namespace enforces it), and
    no service-account token in pods that never call the API."""
    for where, _, template in pod_templates_all(docs):
        pod = template["spec"]
        pod_sc = pod.get("securityContext", {})
        for host in ("hostNetwork", "hostPID", "hostIPC"):
            if pod.get(host):
                errors.append(f"{where}: {host} breaks the restricted pod security level")
        if pod.get("automountServiceAccountToken") is not False:
            errors.append(f"{where}: automountServiceAccountToken is not false")
        for v in pod.get("volumes", []):
            if "hostPath" in v:
                errors.append(f"{where}: volume {v['name']} is a hostPath")
            mode = v.get("secret", {}).get("defaultMode")
            if "secret" in v and (mode is None or mode & 0o007):
                errors.append(f"{where}: secret volume {v['name']} is readable by others "
                              f"(defaultMode {oct(mode) if mode is not None else '0644'})")
        for c in pod["containers"] + pod.get("initContainers", []):
            at = f"{where} container {c['name']}"
            sc = c.get("securityContext", {})
            if not (sc.get("runAsNonRoot") or pod_sc.get("runAsNonRoot")):
                errors.append(f"{at}: runAsNonRoot is not set")
            seccomp = sc.get("seccompProfile", pod_sc.get("seccompProfile", {})).get("type")
            if seccomp not in ("RuntimeDefault", "Localhost"):
                errors.append(f"{at}: no RuntimeDefault seccomp profile")
            if sc.get("allowPrivilegeEscalation") is not False:
                errors.append(f"{at}: allowPrivilegeEscalation is not false")
            if sc.get("privileged"):
                errors.append(f"{at}: privileged")
            caps = sc.get("capabilities", {})
            if "ALL" not in caps.get("drop", []):
                errors.append(f"{at}: capabilities do not drop ALL")
            if set(caps.get("add", [])) - {"NET_BIND_SERVICE"}:
                errors.append(f"{at}: adds capabilities {caps['add']}")
            for p in c.get("ports", []):
                if "hostPort" in p:
                    errors.append(f"{at}: hostPort {p['hostPort']}")
            image = c.get("image", "")
            tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else ""
            if "@sha256:" not in image and not re.search(r"\d+\.\d+", tag):
                errors.append(f"{at}: image {image} has a floating tag; pin a release")


def check_labels(docs, errors):
    for d in docs:
        if d.get("kind") in WORKLOADS + ("CronJob",):
            labels = d["metadata"].get("labels", {})
            for label in RECOMMENDED_LABELS:
                if label not in labels:
                    errors.append(f"{d['kind']}/{d['metadata']['name']}: no label {label}")


def check_network_policy(docs, errors):
    policies = [d for d in docs if d.get("kind") == "NetworkPolicy"]
    if not any(p["spec"].get("podSelector") == {} and "Ingress" in p["spec"].get("policyTypes", [])
               and not p["spec"].get("ingress") for p in policies):
        errors.append("NetworkPolicy: no default deny of ingress (podSelector {} without rules)")
    workloads = {w["metadata"]["name"]: (w, t) for _, w, t in pod_templates_all(docs)}

    def admitted_ports(name):
        """{port name or number: [from clauses]} that the policies admit to workload `name`."""
        _, template = workloads[name]
        labels = template["metadata"].get("labels", {})
        ports = {}
        for p in policies:
            selector = p["spec"].get("podSelector", {}).get("matchLabels", {})
            if not all(labels.get(k) == v for k, v in selector.items()):
                continue
            for rule in p["spec"].get("ingress", []) or []:
                for port in rule.get("ports", [{"port": "*"}]):
                    ports.setdefault(port["port"], []).append(rule.get("from"))
        return ports

    if "kbench-server" in workloads:
        server_ports = admitted_ports("kbench-server")
        if "*" in server_ports or "health" in server_ports or 50052 in server_ports:
            errors.append("NetworkPolicy: the plain-text health port of kbench-server is open")
    if "kbench-postgres" in workloads:
        for port, sources in admitted_ports("kbench-postgres").items():
            for source in sources:
                allowed = [f.get("podSelector", {}).get("matchLabels", {})
                           .get("app.kubernetes.io/name") for f in (source or [{}])]
                if source is None or set(allowed) - {"kbench-server", "kbench-backup"}:
                    errors.append(f"NetworkPolicy: PostgreSQL port {port} is open beyond the "
                                  "servers and the backup")


def check_external_services(docs, errors):
    servers = [c for _, w, t in pod_templates(docs) if w["metadata"]["name"] == "kbench-server"
               for c in t["spec"]["containers"]]
    for d in docs:
        if d.get("kind") != "Service" or d["spec"].get("type") not in ("LoadBalancer", "NodePort"):
            continue
        name = d["metadata"]["name"]
        for p in d["spec"]["ports"]:
            if p.get("targetPort") != "grpc":
                errors.append(f"Service/{name} exposes {p.get('targetPort')} outside the cluster; "
                              "only the gRPC port (TLS) may be")
        for c in servers:
            if not flag_value(c.get("args", []), "--tls-cert"):
                errors.append(f"Service/{name} exposes a server that serves no TLS")


def exported_metrics():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "server", "metrics", "*.cc")):
        with open(path) as f:
            names.update(re.findall(r'\.Name\("(kbench_[a-z_]+)"\)', f.read()))
    return names


def check_monitoring(monitoring, metrics, errors):
    """Every kbench_ metric the alert rules and the dashboard query is one the
    server exports (histograms add _bucket, _sum and _count)."""
    for name, text in monitoring.items():
        for used in sorted(set(re.findall(r"\b(kbench_[a-z_]+)", text))):
            base = re.sub(r"_(bucket|sum|count)$", "", used)
            if used not in metrics and base not in metrics:
                errors.append(f"monitoring/{name}: {used} is not a metric the server exports")


def check_kustomization(manifests, errors):
    kustomization = manifests.get("kustomization.yaml", [{}])[0]
    named = {i.get("name") for i in kustomization.get("images", [])}
    for docs in manifests.values():
        for where, _, template in pod_templates_all(docs):
            for c in template["spec"]["containers"]:
                if c["image"].rsplit(":", 1)[0] not in named:
                    errors.append(f"{where}: image {c['image']} is not in kustomization's images")


def check_all(manifests, dockerfiles, compose, flags, readme, monitoring=None,
              metrics=None):
    errors = []
    docs = [d for name, ds in manifests.items() if name != "kustomization.yaml" for d in ds]
    check_basics(manifests, errors)
    check_containers(docs, dockerfiles, flags, errors)
    check_pdb_and_services(docs, errors)
    check_secrets(docs, readme, errors)
    check_compose_and_images(compose, dockerfiles, flags, errors)
    check_schema(docs, errors)
    check_pod_security(docs, errors)
    check_labels(docs, errors)
    check_network_policy(docs, errors)
    check_external_services(docs, errors)
    check_kustomization(manifests, errors)
    check_monitoring(monitoring or {}, metrics or set(), errors)
    return errors


class Inputs:
    flags = None

    def __init__(self):
        self.manifests = load_manifests()
        self.dockerfiles = load_dockerfiles()
        with open(os.path.join(ROOT, "docker", "compose.yaml")) as f:
            self.compose = yaml.safe_load(f)
        with open(os.path.join(ROOT, "deploy", "README.md")) as f:
            self.readme = f.read()
        self.monitoring = {}
        for path in glob.glob(os.path.join(K8S, "monitoring", "*")):
            with open(path) as f:
                self.monitoring[os.path.basename(path)] = f.read()
        self.metrics = exported_metrics()

    def errors(self):
        return check_all(self.manifests, self.dockerfiles, self.compose, Inputs.flags, self.readme,
                         self.monitoring, self.metrics)

    def server(self):
        return next(d for d in self.manifests["server.yaml"] if d["kind"] == "DaemonSet")

    def server_container(self):
        return self.server()["spec"]["template"]["spec"]["containers"][0]


class RepositoryFiles(unittest.TestCase):
    def test_the_deployment_files_agree_with_each_other_and_the_server(self):
        self.assertEqual(Inputs().errors(), [])


class EachCheckCanFail(unittest.TestCase):
    """Each check, shown failing on a copy of the repository's files with one
    fact broken."""

    def assertReports(self, inputs, fragment):
        errors = inputs.errors()
        self.assertTrue(any(fragment in e for e in errors), f"no '{fragment}' in {errors}")

    def test_a_server_without_a_gpu_request(self):
        inputs = Inputs()
        for part in ("requests", "limits"):
            inputs.server_container()["resources"][part].pop("nvidia.com/gpu")
        self.assertReports(inputs, "asks for no nvidia.com/gpu")

    def test_a_gpu_request_that_differs_from_its_limit(self):
        inputs = Inputs()
        inputs.server_container()["resources"]["requests"]["nvidia.com/gpu"] = 2
        self.assertReports(inputs, "requests differ from limits")

    def test_a_missing_probe(self):
        inputs = Inputs()
        inputs.server_container().pop("readinessProbe")
        self.assertReports(inputs, "no readinessProbe")

    def test_a_tcp_probe_instead_of_the_health_service(self):
        inputs = Inputs()
        inputs.server_container()["livenessProbe"] = {"tcpSocket": {"port": "grpc"}}
        self.assertReports(inputs, "livenessProbe is not a grpc probe of the health port")

    def test_a_probe_on_an_undeclared_port(self):
        inputs = Inputs()
        inputs.server_container()["livenessProbe"] = {"grpc": {"port": 50099}}
        self.assertReports(inputs, "livenessProbe port 50099")

    def test_a_container_without_a_memory_limit(self):
        inputs = Inputs()
        inputs.server_container()["resources"]["limits"].pop("memory")
        self.assertReports(inputs, "no limits.memory")

    def test_a_pod_disruption_budget_on_the_daemonset(self):
        inputs = Inputs()
        inputs.manifests["server.yaml"].append(
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "kbench-server", "namespace": NAMESPACE},
             "spec": {"maxUnavailable": 1,
                      "selector": {"matchLabels": {"app.kubernetes.io/name": "kbench-server"}}}})
        self.assertReports(inputs, "drains ignore DaemonSet pods")

    def test_a_rollout_of_several_hosts_at_once(self):
        inputs = Inputs()
        inputs.server()["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] = 3
        self.assertReports(inputs, "one GPU host at a time")

    def test_a_misspelt_field(self):
        inputs = Inputs()
        container = inputs.server_container()
        container["readinesProbe"] = container.pop("readinessProbe")
        self.assertReports(inputs, "unknown field readinesProbe in container")

    def test_a_privileged_container(self):
        inputs = Inputs()
        inputs.server_container()["securityContext"]["privileged"] = True
        self.assertReports(inputs, "container kbench-server: privileged")

    def test_a_container_that_may_escalate(self):
        inputs = Inputs()
        inputs.server_container()["securityContext"].pop("allowPrivilegeEscalation")
        self.assertReports(inputs, "allowPrivilegeEscalation is not false")

    def test_a_service_account_token_mounted(self):
        inputs = Inputs()
        inputs.server()["spec"]["template"]["spec"].pop("automountServiceAccountToken")
        self.assertReports(inputs, "automountServiceAccountToken is not false")

    def test_a_world_readable_secret_volume(self):
        inputs = Inputs()
        inputs.server()["spec"]["template"]["spec"]["volumes"][0]["secret"]["defaultMode"] = 0o644
        self.assertReports(inputs, "secret volume tls is readable by others")

    def test_a_floating_image_tag(self):
        inputs = Inputs()
        postgres = next(d for d in inputs.manifests["postgres.yaml"] if d["kind"] == "StatefulSet")
        postgres["spec"]["template"]["spec"]["containers"][0]["image"] = "postgres:15-bookworm"
        self.assertReports(inputs, "has a floating tag")

    def test_a_workload_without_the_recommended_labels(self):
        inputs = Inputs()
        inputs.server()["metadata"]["labels"].pop("app.kubernetes.io/version")
        self.assertReports(inputs, "no label app.kubernetes.io/version")

    def test_the_namespace_in_the_kustomization(self):
        inputs = Inputs()
        inputs.manifests["kustomization.yaml"][0]["resources"].append("namespace.yaml")
        self.assertReports(inputs, "deletes the namespace and its volumes")

    def test_an_image_the_kustomization_does_not_name(self):
        inputs = Inputs()
        inputs.manifests["kustomization.yaml"][0]["images"].pop(0)
        self.assertReports(inputs, "is not in kustomization's images")

    def test_a_missing_startup_probe(self):
        inputs = Inputs()
        inputs.server_container().pop("startupProbe")
        self.assertReports(inputs, "no startupProbe")

    def test_liveness_on_the_readiness_signal(self):
        inputs = Inputs()
        inputs.server_container()["livenessProbe"]["grpc"]["service"] = "kbench.v1.KernelBench"
        self.assertReports(inputs, "livenessProbe asks the readiness signal")

    def test_pg_isready_over_the_socket(self):
        inputs = Inputs()
        postgres = next(d for d in inputs.manifests["postgres.yaml"] if d["kind"] == "StatefulSet")
        postgres["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["exec"][
            "command"] = ["pg_isready", "-U", "kbench"]
        self.assertReports(inputs, "runs pg_isready over the socket")

    def test_an_implicit_shutdown_grace(self):
        inputs = Inputs()
        args = inputs.server_container()["args"]
        args.remove(next(a for a in args if a.startswith("--shutdown-grace")))
        self.assertReports(inputs, "--shutdown-grace is implicit")

    def test_a_shutdown_grace_the_pod_does_not_allow(self):
        inputs = Inputs()
        inputs.server()["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 20
        self.assertReports(inputs, "is not shorter than terminationGracePeriodSeconds 20")

    def test_no_default_deny(self):
        inputs = Inputs()
        inputs.manifests["network-policy.yaml"].pop(0)
        self.assertReports(inputs, "no default deny of ingress")

    def test_the_health_port_open(self):
        inputs = Inputs()
        policy = next(d for d in inputs.manifests["network-policy.yaml"]
                      if d["metadata"]["name"] == "kbench-server")
        policy["spec"]["ingress"].append({"ports": [{"port": "health"}]})
        self.assertReports(inputs, "the plain-text health port of kbench-server is open")

    def test_postgres_open_to_every_pod(self):
        inputs = Inputs()
        policy = next(d for d in inputs.manifests["network-policy.yaml"]
                      if d["metadata"]["name"] == "kbench-postgres")
        policy["spec"]["ingress"][0]["from"].append({"podSelector": {}})
        self.assertReports(inputs, "PostgreSQL port postgres is open beyond the servers")

    def test_a_store_without_tls(self):
        inputs = Inputs()
        args = inputs.server_container()["args"]
        i = next(i for i, a in enumerate(args) if a.startswith("--store="))
        args[i] = "--store=postgresql://kbench@kbench-postgres:5432/kbench"
        self.assertReports(inputs, "does not ask PostgreSQL for TLS")

    def test_a_store_url_without_user_or_port_names_its_host(self):
        match = POSTGRES_URL.match("postgresql://db/x")
        self.assertEqual((match.group("host"), match.group("port")), ("db", None))
        match = POSTGRES_URL.match("postgres://u:pw@db-host:6543/x?sslmode=require")
        self.assertEqual((match.group("host"), match.group("port"), match.group("password")),
                         ("db-host", "6543", "pw"))

    def test_a_shared_store_without_the_nodes_name_as_host_id(self):
        for change in ("drop", "pod"):
            inputs = Inputs()
            container = inputs.server_container()
            if change == "drop":
                container["args"] = [a for a in container["args"]
                                     if not a.startswith("--host-id")]
            else:
                env = next(e for e in container["env"] if e["name"] == "NODE_NAME")
                env["valueFrom"]["fieldRef"]["fieldPath"] = "metadata.name"
            self.assertReports(inputs, "needs --host-id=$(VAR) with VAR the node's name")

    def test_a_shared_store_without_a_stated_lease_long_enough(self):
        for lease in (None, "10", "soon"):
            inputs = Inputs()
            container = inputs.server_container()
            container["args"] = [a for a in container["args"]
                                 if not a.startswith("--host-lease-seconds")]
            if lease is not None:
                container["args"].append(f"--host-lease-seconds={lease}")
            self.assertReports(inputs, "--host-lease-seconds to 30 or more")

    def test_a_shared_store_without_the_shared_queue(self):
        inputs = Inputs()
        container = inputs.server_container()
        container["args"] = [a for a in container["args"] if a != "--shared-queue"]
        self.assertReports(inputs, "give --shared-queue")

    def test_a_password_in_the_store_url(self):
        inputs = Inputs()
        args = inputs.server_container()["args"]
        i = next(i for i, a in enumerate(args) if a.startswith("--store="))
        args[i] = "--store=postgresql://kbench:pw@kbench-postgres:5432/kbench?sslmode=require"
        self.assertReports(inputs, "--store carries a password")

    def test_an_external_service_of_the_dashboard(self):
        inputs = Inputs()
        service = next(d for d in inputs.manifests["service.yaml"]
                       if d["metadata"]["name"] == "kbench-public")
        service["spec"]["ports"].append({"name": "http", "port": 8080, "targetPort": "http"})
        self.assertReports(inputs, "exposes http outside the cluster")

    def test_an_external_service_of_a_server_without_tls(self):
        inputs = Inputs()
        args = inputs.server_container()["args"]
        for flag in ("--tls-cert", "--tls-key"):
            args.remove(next(a for a in args if a.startswith(flag)))
        self.assertReports(inputs, "exposes a server that serves no TLS")

    def test_compose_publishing_an_insecure_server_to_the_network(self):
        inputs = Inputs()
        inputs.compose["services"]["server"]["ports"][0] = "50051:50051"
        self.assertReports(inputs, "publishes 50051:50051 of an --insecure server")

    def test_an_alert_on_a_metric_the_server_does_not_export(self):
        inputs = Inputs()
        inputs.monitoring["alert-rules.yaml"] += "\n# expr: kbench_gpu_temperature > 90\n"
        self.assertReports(inputs, "kbench_gpu_temperature is not a metric the server exports")

    def test_an_inlined_secret(self):
        inputs = Inputs()
        inputs.manifests["postgres.yaml"].append(
            {"apiVersion": "v1", "kind": "Secret",
             "metadata": {"name": "kbench-postgres", "namespace": NAMESPACE},
             "stringData": {"password": "hunter2"}})
        self.assertReports(inputs, "Secret/kbench-postgres is written")

    def test_a_password_as_a_literal_variable(self):
        inputs = Inputs()
        inputs.server_container()["env"] = [{"name": "PGPASSWORD", "value": "hunter2"}]
        self.assertReports(inputs, "PGPASSWORD is written inline")

    def test_a_secret_the_readme_does_not_create(self):
        inputs = Inputs()
        inputs.server()["spec"]["template"]["spec"]["volumes"][0]["secret"]["secretName"] = "x"
        self.assertReports(inputs, "Secret x is not one deploy/README.md creates")

    def test_an_unknown_server_flag(self):
        inputs = Inputs()
        inputs.server_container()["args"].append("--no-such-flag=1")
        self.assertReports(inputs, "--no-such-flag is not a kbench-server flag")

    def test_an_unknown_flag_in_compose(self):
        inputs = Inputs()
        inputs.compose["services"]["server"]["command"].append("--no-such-flag")
        self.assertReports(inputs, "compose server: --no-such-flag")

    def test_a_port_the_image_does_not_expose(self):
        inputs = Inputs()
        inputs.server_container()["ports"][1]["containerPort"] = 9090
        self.assertReports(inputs, "are not docker/server-cuda.Dockerfile's EXPOSE")

    def test_listen_off_the_grpc_port(self):
        inputs = Inputs()
        args = inputs.server_container()["args"]
        args[args.index("--listen=0.0.0.0:50051")] = "--listen=0.0.0.0:50099"
        self.assertReports(inputs, "--listen does not use the grpc port")

    def test_an_image_no_dockerfile_builds(self):
        inputs = Inputs()
        inputs.server_container()["image"] = "registry.example.com/kbench/kbench-server-rocm:1"
        self.assertReports(inputs, "has no docker/server-rocm.Dockerfile")

    def test_a_gpu_server_on_the_cpu_image(self):
        inputs = Inputs()
        inputs.server_container()["image"] = "registry.example.com/kbench/kbench-server-cpu:1"
        self.assertReports(inputs, "must run kbench-server-cuda")

    def test_a_user_other_than_the_images(self):
        inputs = Inputs()
        inputs.server()["spec"]["template"]["spec"]["securityContext"]["runAsUser"] = 0
        self.assertReports(inputs, "runAsUser 0")

    def test_a_store_no_service_serves(self):
        inputs = Inputs()
        args = inputs.server_container()["args"]
        i = next(i for i, a in enumerate(args) if a.startswith("--store="))
        args[i] = "--store=postgresql://kbench@kbench-pg:5432/kbench"
        self.assertReports(inputs, "names kbench-pg:5432, which no Service serves")

    def test_a_service_targeting_an_undeclared_port(self):
        inputs = Inputs()
        service = next(d for d in inputs.manifests["service.yaml"]
                       if d["metadata"]["name"] == "kbench")
        service["spec"]["ports"][0]["targetPort"] = "grpcs"
        self.assertReports(inputs, "targetPort grpcs")

    def test_a_file_kustomization_leaves_out(self):
        inputs = Inputs()
        inputs.manifests["kustomization.yaml"][0]["resources"].remove("postgres.yaml")
        self.assertReports(inputs, "postgres.yaml: not listed")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    Inputs.flags = server_flags(sys.argv.pop(1))
    unittest.main()
