#!/usr/bin/env python3
"""Checks the deployment files against each other and against the server,
offline (no cluster, no podman): deploy/k8s/*.yaml, docker/*.Dockerfile,
docker/compose.yaml and `kbench-server --help`.

  - every manifest has apiVersion, kind, metadata.name, the kbench namespace,
    and is listed in kustomization.yaml;
  - every container has readiness and liveness probes on a port it declares
    (the server's: grpc probes of the --health-listen port),
    and cpu and memory requests and limits;
  - the server asks for nvidia.com/gpu (requests equal to limits), runs the
    CUDA image with --backend=cuda, and a PodDisruptionBudget covers it;
  - no Secret is written in the manifests and no secret-looking variable has
    a literal value; every Secret referenced is one deploy/README.md creates;
  - every kbench image is built by a docker/NAME.Dockerfile, its container
    ports are that Dockerfile's EXPOSE ports and its user the Dockerfile's;
  - every server flag in the manifests, the compose file and the Dockerfiles'
    CMD is one `kbench-server --help` lists; --listen and --http use the
    declared ports; --store names the PostgreSQL Service;
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
SECRET_NAME = re.compile(r"(PASSWORD|TOKEN|SECRET|KEY)", re.I)
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
        if name not in listed:
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
            for probe in ("readinessProbe", "livenessProbe"):
                spec = c.get(probe)
                if not spec:
                    errors.append(f"{at}: no {probe}")
                    continue
                for kind in ("grpc", "tcpSocket", "httpGet"):
                    if kind in spec:
                        port = spec[kind]["port"]
                        if port not in ports and port not in ports.values():
                            errors.append(f"{at}: {probe} port {port} is not a declared port")
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
                check_server_container(at, c, image, ports, flags, services, errors)


def check_server_container(at, c, image, ports, flags, services, errors):
    args = c.get("args", [])
    for flag in flag_names(args):
        if flag not in flags:
            errors.append(f"{at}: {flag} is not a kbench-server flag")
    if port_of(flag_value(args, "--listen")) != ports.get("grpc"):
        errors.append(f"{at}: --listen does not use the grpc port {ports.get('grpc')}")
    if port_of(flag_value(args, "--health-listen")) != ports.get("health"):
        errors.append(f"{at}: --health-listen does not use the health port {ports.get('health')}")
    for probe in ("readinessProbe", "livenessProbe"):
        grpc_probe = c.get(probe, {}).get("grpc")
        if not grpc_probe or grpc_probe.get("port") != ports.get("health"):
            errors.append(f"{at}: {probe} is not a grpc probe of the health port")
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
    match = re.match(r"postgres(?:ql)?://[^@/]*@?([^:/]+):?(\d+)?/", store)
    if match:
        host, port = match.group(1), int(match.group(2) or 5432)
        service = services.get(host)
        if service is None or port not in [p["port"] for p in service["spec"]["ports"]]:
            errors.append(f"{at}: --store names {host}:{port}, which no Service serves")
        if re.match(r"postgres(?:ql)?://[^@/]*:[^@/]*@", store):
            errors.append(f"{at}: --store carries a password; use PGPASSWORD from a Secret")


def check_pdb_and_services(docs, errors):
    templates = [(where, t["metadata"].get("labels", {}), t["spec"]) for where, _, t in
                 pod_templates(docs)]

    def selected(selector):
        return [(w, spec) for w, labels, spec in templates
                if selector and all(labels.get(k) == v for k, v in selector.items())]

    for where, _, spec in templates:
        if any("nvidia.com/gpu" in c.get("resources", {}).get("limits", {})
               for c in spec["containers"]):
            if not any(d.get("kind") == "PodDisruptionBudget" and
                       (where, spec) in selected(d["spec"]["selector"].get("matchLabels"))
                       for d in docs):
                errors.append(f"{where}: no PodDisruptionBudget selects it")
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


def check_all(manifests, dockerfiles, compose, flags, readme):
    errors = []
    docs = [d for name, ds in manifests.items() if name != "kustomization.yaml" for d in ds]
    check_basics(manifests, errors)
    check_containers(docs, dockerfiles, flags, errors)
    check_pdb_and_services(docs, errors)
    check_secrets(docs, readme, errors)
    check_compose_and_images(compose, dockerfiles, flags, errors)
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

    def errors(self):
        return check_all(self.manifests, self.dockerfiles, self.compose, Inputs.flags, self.readme)

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

    def test_a_missing_pod_disruption_budget(self):
        inputs = Inputs()
        inputs.manifests["server.yaml"] = [inputs.server()]
        self.assertReports(inputs, "no PodDisruptionBudget")

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
