// Canopy's cluster view: polls canopyd's JSON API (/api/v1/..., docs/web.md) every 2 s and
// draws the switch tree with each leaf's nodes, the running gangs across them, and the queue.
// Everything from the API goes in as text (textContent), never as markup.
"use strict";

const POLL_MS = 2000;
const PALETTE = ["#d9480f", "#7048e8", "#0ca678", "#e64980", "#1971c2", "#f08c00",
                 "#5c940d", "#862e9c", "#0b7285", "#c92a2a"];
// A job to explain from the start: index.html#job=12 (links from alerts, chat, tickets).
let selectedJob = /^#job=(\d+)$/.test(location.hash) ? Number(location.hash.slice(5)) : null;
let last = null;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function jobColor(id) { return PALETTE[id % PALETTE.length]; }

function shortState(s) { return (s || "").replace(/^(JOB|NODE)_STATE_/, ""); }

function nodeClass(node) {
  if (node.state === "NODE_STATE_DOWN" || node.notResponding) return "node-down";
  if (node.drain) return "node-drain";
  switch (node.state) {
    case "NODE_STATE_IDLE": return "node-idle";
    case "NODE_STATE_MIXED": return "node-mixed";
    case "NODE_STATE_ALLOCATED": return "node-allocated";
    default: return "node-unknown";
  }
}

function isRunning(job) {
  return ["JOB_STATE_RUNNING", "JOB_STATE_CONFIGURING", "JOB_STATE_COMPLETING"]
    .includes(job.state) && job.nodes.length > 0;
}

function drawNode(node, jobsOnNode) {
  const box = el("div", "node " + nodeClass(node));
  box.dataset.node = node.name;
  box.dataset.state = node.slurmStateLong;
  box.dataset.jobs = jobsOnNode.map((j) => j.jobId).join(" ");
  box.title = `${node.name}: ${node.slurmStateLong}` +
    (node.reason ? ` (${node.reason})` : "") +
    `\nGPUs ${node.allocGpus}/${node.gpusConfigured} allocated` +
    (jobsOnNode.length ? `\njobs ${box.dataset.jobs}` : "");
  box.appendChild(el("div", "node-name", node.name));
  const gpus = el("div", "gpus");
  for (let i = 0; i < node.gpusConfigured; i++) {
    gpus.appendChild(el("span", i < node.allocGpus ? "gpu used" : "gpu"));
  }
  box.appendChild(gpus);
  // A gang is outlined in its colour on every node it holds; a node shared by several jobs
  // gets one ring per job.
  if (jobsOnNode.length > 0) {
    box.style.borderColor = jobColor(jobsOnNode[0].jobId);
    box.style.boxShadow = jobsOnNode.slice(1)
      .map((j, i) => `0 0 0 ${2 * (i + 1)}px ${jobColor(j.jobId)}`).join(", ");
  }
  if (selectedJob !== null && jobsOnNode.some((j) => j.jobId === selectedJob)) {
    box.classList.add("selected");
    box.style.outline = `3px solid ${jobColor(selectedJob)}`;
  }
  return box;
}

function drawSwitch(sw, bySwitch, nodesByName, jobsByNode) {
  const box = el("div", "switch");
  box.dataset.switch = sw.name;
  box.dataset.level = sw.level;
  const head = el("div", "switch-head");
  head.appendChild(el("span", "switch-name", sw.name));
  const bar = el("span", "gpu-bar");
  const fill = el("span");
  fill.style.width = sw.totalGpus ? `${(100 * sw.usedGpus) / sw.totalGpus}%` : "0";
  bar.appendChild(fill);
  bar.title = `${sw.usedGpus} of ${sw.totalGpus} GPUs allocated, ${sw.downGpus} down`;
  head.appendChild(bar);
  head.appendChild(el("span", "switch-gpus", `${sw.usedGpus}/${sw.totalGpus} GPUs`));
  const chips = el("span", "switch-jobs");
  for (const id of sw.jobIds) {
    const chip = el("span", "", String(id));
    chip.style.background = jobColor(id);
    chip.title = `job ${id} has nodes under ${sw.name}`;
    chips.appendChild(chip);
  }
  head.appendChild(chips);
  box.appendChild(head);
  if (sw.childSwitches.length > 0) {
    const level = el("div", "tree-level");
    for (const child of sw.childSwitches) {
      if (bySwitch.has(child)) {
        level.appendChild(drawSwitch(bySwitch.get(child), bySwitch, nodesByName, jobsByNode));
      }
    }
    box.appendChild(level);
  } else {
    box.appendChild(drawNodes(sw.nodes, nodesByName, jobsByNode));
  }
  return box;
}

function drawNodes(names, nodesByName, jobsByNode) {
  const nodes = el("div", "nodes");
  for (const name of names) {
    const node = nodesByName.get(name);
    if (node) nodes.appendChild(drawNode(node, jobsByNode.get(name) || []));
  }
  return nodes;
}

function drawTree(topology, nodes, jobs) {
  const nodesByName = new Map(nodes.map((n) => [n.name, n]));
  const jobsByNode = new Map();
  for (const job of jobs.filter(isRunning)) {
    for (const name of job.nodes) {
      if (!jobsByNode.has(name)) jobsByNode.set(name, []);
      jobsByNode.get(name).push(job);
    }
  }
  const bySwitch = new Map(topology.switches.map((s) => [s.name, s]));
  const root = el("div", "tree-level");
  for (const sw of topology.switches.filter((s) => s.parent === "")) {
    root.appendChild(drawSwitch(sw, bySwitch, nodesByName, jobsByNode));
  }
  // Nodes under no switch (or a cluster without topology) form one group of their own.
  const loose = topology.switches.length === 0 ? nodes.map((n) => n.name)
                                                 : topology.unswitchedNodes;
  if (loose.length > 0) {
    const box = el("div", "switch unswitched");
    box.dataset.switch = "";
    box.appendChild(el("div", "switch-head",
                       topology.switches.length === 0 ? "all nodes (no topology)"
                                                      : "nodes under no switch"));
    box.appendChild(drawNodes(loose, nodesByName, jobsByNode));
    root.appendChild(box);
  }
  const tree = document.getElementById("tree");
  tree.replaceChildren(root);
}

function timeOf(ts) {
  return ts ? new Date(ts).toLocaleTimeString() : "";
}

function explain(job) {
  const box = document.getElementById("explain");
  if (!job) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const running = isRunning(job);
  document.getElementById("explain-title").textContent =
    `Job ${job.jobId} (${job.spec.name}): ` + (running ? "why these switches" :
      job.state === "JOB_STATE_PENDING" ? "why still pending" : shortState(job.state));
  const parts = [];
  if (job.placementExplanation) parts.push(job.placementExplanation);
  if (job.state === "JOB_STATE_PENDING") {
    parts.push(`Reason: ${job.reason}.`);
    if (job.expectedStart) {
      parts.push(`Backfill expects it to start at ${timeOf(job.expectedStart)}` +
                 (job.expectedNodes.length ? ` on ${job.expectedNodes.join(",")}.` : "."));
    }
  }
  if (job.stateMessage) parts.push(job.stateMessage);
  document.getElementById("explain-text").textContent = parts.join(" ") || "No explanation.";
}

function drawQueue(jobs) {
  const body = document.querySelector("#queue tbody");
  const rows = [];
  for (const job of jobs) {
    const tr = el("tr");
    tr.dataset.job = job.jobId;
    tr.dataset.state = shortState(job.state);
    if (job.jobId === selectedJob) tr.classList.add("selected");
    const id = el("td");
    const chip = el("span", "job-chip", String(job.jobId));
    chip.style.background = isRunning(job) ? jobColor(job.jobId) : "#8a93a3";
    id.appendChild(chip);
    tr.appendChild(id);
    tr.appendChild(el("td", "", job.spec.name));
    tr.appendChild(el("td", "", job.userName));
    tr.appendChild(el("td", "", shortState(job.state)));
    const gpus = job.gpusPerNodeAllocated.reduce((a, b) => a + b, 0) ||
      (job.spec.gpusPerNode * Math.max(job.spec.minNodes, 1));
    tr.appendChild(el("td", "", String(gpus)));
    tr.appendChild(el("td", "", job.nodes.length ? job.nodes.join(",") :
      job.expectedStart ? `expected ${timeOf(job.expectedStart)}` : ""));
    tr.appendChild(el("td", "", job.leafSwitches.join(",")));
    tr.appendChild(el("td", "", job.reason === "None" ? "" : job.reason));
    tr.addEventListener("click", () => {
      selectedJob = selectedJob === job.jobId ? null : job.jobId;
      history.replaceState(null, "", selectedJob === null ? "#" : `#job=${selectedJob}`);
      render();
    });
    rows.push(tr);
  }
  body.replaceChildren(...rows);
  explain(jobs.find((j) => j.jobId === selectedJob));
}

function render() {
  if (!last) return;
  drawTree(last.topology, last.nodes, last.jobs);
  drawQueue(last.jobs);
  document.body.dataset.rendered = String(Number(document.body.dataset.rendered || 0) + 1);
}

async function getJson(path) {
  const response = await fetch(path, { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `${path}: HTTP ${response.status}`);
  return body;
}

async function poll() {
  const status = document.getElementById("status");
  try {
    const [ping, topology, nodes] = await Promise.all(
      [getJson("/api/v1/ping"), getJson("/api/v1/topology"), getJson("/api/v1/nodes")]);
    let jobs = [];
    let jobsNote = "";
    try {
      jobs = (await getJson("/api/v1/jobs")).jobs;
    } catch (e) {
      jobsNote = ` · jobs hidden: ${e.message}`;  // PrivateData=jobs
    }
    last = { topology, nodes: nodes.nodes, jobs };
    document.getElementById("cluster").textContent = ping.clusterName;
    const running = jobs.filter(isRunning).length;
    const pending = jobs.filter((j) => j.state === "JOB_STATE_PENDING").length;
    status.textContent = `updated ${new Date().toLocaleTimeString()} · ${nodes.nodes.length} ` +
      `nodes · ${running} running · ${pending} pending${jobsNote}`;
    status.classList.remove("stale");
    render();
  } catch (e) {
    status.textContent = `stale: cannot reach canopyd (${e.message}); retrying`;
    status.classList.add("stale");
  }
  setTimeout(poll, POLL_MS);
}

poll();
