// The in-page calculators (memory and speed) and kernel demos (systolic array,
// roofline explorer): form <-> URL <-> Python.
//
// The page arrives with the form, the result for its default inputs
// (pre-computed at build time by the same Python code) and a JSON config
// (<script type="application/json" data-calc-config>). This module:
//   - fills the form from the URL query (?model=llama-3.1-70b&weights=q4_k_m),
//   - starts the shared Python runtime (pyodide-client.mjs) and shows its
//     status in the page's language (texts come from the config),
//   - sends the inputs to the config's entry point in the worker
//     (`calculators.render`, `kernels.systolic`, `kernels.roofline`), which
//     returns the localized result HTML or per-field error messages: on every
//     change, or, with config.trigger "submit", when the reader presses the
//     form's Run button ([data-calc-run], shown once the runtime is ready),
//   - keeps the URL in step with the form, so each result has a shareable link,
//   - brings step-through views in a result to life (stepper.mjs).
// No number is computed or formatted here; Python does both.
import { onEveryPage, pageRuntime } from "./pyodide-client.mjs";
import { activateSteppers } from "./stepper.mjs";

const TRUE_WORDS = ["true", "1", "yes", "on", "ja", "wahr"];
const LINK_DELAY_MS = 300;

// A search box above a device list narrows its options (the list itself stays complete without JavaScript).
function activateSearch(box) {
  const select = document.getElementById(box.dataset.filterFor);
  if (!select || box.dataset.ready) return;
  box.dataset.ready = "1";
  box.hidden = false;
  const words = (text) => text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9.]+/g, " ").trim();
  box.addEventListener("input", () => {
    const query = words(box.value).split(" ").filter(Boolean);
    let first = null;
    for (const option of select.options) {
      const hit = !option.value || query.every((q) => words(`${option.text} ${option.value}`).includes(q));
      option.hidden = !hit;
      if (hit && option.value && !first) first = option;
    }
    box.setCustomValidity(first || !query.length ? "" : box.dataset.none.replace("{query}", box.value));
    box.toggleAttribute("aria-invalid", !first && query.length > 0);
  });
  box.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    const first = [...select.options].find((o) => o.value && !o.hidden);
    if (first && select.value !== first.value) {
      select.value = first.value;
      select.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
}

function conditionHolds(form, condition) {
  if (!condition) return true;
  const negate = condition.includes("!=");
  const [name, wanted] = condition.split(negate ? "!=" : "=");
  const field = form.elements.namedItem(name);
  const actual = field ? field.value : "";
  return negate ? actual !== wanted : actual === wanted;
}

function applyConditions(form) {
  for (const group of form.querySelectorAll("fieldset[data-when]")) {
    const shown = conditionHolds(form, group.dataset.when);
    group.hidden = !shown;
    group.disabled = !shown;
  }
}

// Put a value from the URL into a field, keeping it as typed if the field cannot show it.
// A device choice of a size the list does not offer ("apple-m3-max@64" from a link): the device's label with
// that size ("Apple M3 Max · 64 GiB"); null when the value is no such choice.
function sizedLabel(select, value) {
  const [id, size] = value.split("@");
  if (size === undefined) return null;
  const known = [...select.options].find((o) => o.value === id.trim().toLowerCase() && o.dataset.gib);
  if (!known || !size.trim()) return null;
  const at = known.text.lastIndexOf(known.dataset.gib);
  return at < 0 ? null : known.text.slice(0, at) + size.trim() + known.text.slice(at + known.dataset.gib.length);
}

function setField(field, value) {
  if (field.tagName === "SELECT") {
    if (![...field.options].some((o) => o.value === value)) {
      const option = new Option(sizedLabel(field, value) ?? value, value);
      option.dataset.fromLink = "1";
      field.add(option);
    }
    field.value = value;
  } else if (field.type === "checkbox") {
    field.checked = TRUE_WORDS.includes(value.trim().toLowerCase());
    field.dataset.raw = value; // Python judges it; dropped once the reader ticks the box
  } else {
    field.value = value;
  }
}

function fieldValue(field) {
  if (field.type === "checkbox") return field.dataset.raw ?? String(field.checked);
  return field.value;
}

function namedFields(form) {
  return [...form.elements].filter((f) => f.name && !f.matches(":disabled"));
}

const GGUF_FIRST_BYTES = 1 << 20; // read more only if the header says it needs more
const GGUF_MOST_BYTES = 64 << 20;

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

class Calculator {
  constructor(root) {
    this.root = root;
    this.config = JSON.parse(root.querySelector("script[data-calc-config]").textContent);
    this.form = root.querySelector("form[data-calc-form]");
    this.status = root.querySelector("[data-calc-status]");
    this.results = root.querySelector("[data-calc-results]");
    this.errors = root.querySelector("[data-calc-errors]");
    this.share = root.querySelector("[data-calc-share]");
    this.runButton = root.querySelector("[data-calc-run]");
    this.summary = root.querySelector("[data-calc-summary]");
    // The sticky answer shows three lines; a tap shows the rest, another tap folds it again.
    if (this.summary) this.summary.addEventListener("click", () => this.summary.toggleAttribute("data-expanded"));
    this.importBox = root.querySelector("[data-calc-import]");
    if (this.importBox) {
      this.importBox.querySelector("[data-import-run]").addEventListener("click", () => this.importModel());
    }
    for (const box of root.querySelectorAll("input[data-filter-for]")) {
      box.dataset.none = this.config.messages["calc.device_search.none"] || "";
      activateSearch(box);
    }
    this.live = this.config.trigger !== "submit"; // else only the Run button computes
    this.inflight = false;
    this.queued = false;
    this.renders = 0;
    this.linkExtras = {};
    this.fromLink = this.readLink();
    applyConditions(this.form);
    this.showMemory();
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!this.live) this.run();
    });
    this.form.addEventListener("input", (event) => this.changed(event));
    this.form.addEventListener("change", (event) => this.changed(event));
    this.updateLink();
    this.setStatus("loading", this.config.status[this.fromLink ? "loading_link" : "loading"]);
    if (this.fromLink && this.linkDiffers()) this.showPending();
    activateSteppers(this.results);
  }

  // Does the link ask for something other than the page's defaults (whose answer the page already shows)?
  linkDiffers() {
    if (Object.keys(this.linkExtras).length) return true;
    return namedFields(this.form).some((field) => fieldValue(field) !== (field.dataset.default ?? ""));
  }

  // While the runtime loads for a shared link: the link's inputs and "computing …" in place of the
  // pre-rendered answer, which is for the default inputs and would read as the answer to the link.
  showPending() {
    const messages = this.config.messages;
    const items = [];
    for (const field of namedFields(this.form)) {
      if (fieldValue(field) === (field.dataset.default ?? "")) continue;
      const label = this.root.querySelector(`label[for="${CSS.escape(field.id)}"]`);
      let shown = field.value;
      if (field.tagName === "SELECT") shown = field.selectedOptions[0]?.text ?? field.value;
      else if (field.type === "checkbox") shown = messages[field.checked ? "yes" : "no"] || String(field.checked);
      const item = document.createElement("li");
      const name = document.createElement("span");
      name.textContent = `${label ? label.textContent.trim() : field.name}: `;
      const value = document.createElement("strong");
      value.textContent = shown || messages["calc.pending.empty"] || "";
      item.append(name, value);
      items.push(item);
    }
    const line = Object.assign(document.createElement("p"), {
      className: "atlas-calc-pending-line",
      textContent: messages["calc.pending"] || this.config.status.loading_link,
    });
    const list = Object.assign(document.createElement("ul"), { className: "atlas-calc-pending-inputs" });
    list.append(...items);
    const heading = Object.assign(document.createElement("p"), { textContent: messages["calc.pending.inputs"] || "" });
    this.results.replaceChildren(line, ...(items.length ? [heading, list] : []));
    this.results.classList.add("atlas-calc-pending");
    this.results.setAttribute("aria-busy", "true");
    this.results.dataset.calcPending = "1";
    if (this.summary) this.summary.textContent = messages["calc.pending"] || "";
    this.share.hidden = true;
  }

  // Fields named in the query string take its values; other names are passed on once, so
  // Python can say that it does not know them.
  readLink() {
    const query = new URLSearchParams(location.search);
    let any = false;
    for (const [name, value] of query) {
      const field = this.form.elements.namedItem(name);
      if (field && field.name === name) setField(field, value);
      else this.linkExtras[name] = value;
      any = true;
    }
    // A group that travels whole (a custom model) means exactly what the link says: a field
    // the link leaves out takes Python's default, not the value this page prefilled.
    for (const group of this.form.querySelectorAll("fieldset[data-always-in-url]")) {
      if (!any || !conditionHolds(this.form, group.dataset.when)) continue;
      for (const field of group.elements) {
        if (field.name && !query.has(field.name)) field.value = "";
      }
    }
    return any;
  }

  start(runtime) {
    this.runtime = runtime;
    runtime.onStatus((status, info) => {
      if (status === "ready") {
        if (this.importBox) this.importBox.hidden = false;
        if (this.runButton) this.runButton.closest("[hidden]")?.removeAttribute("hidden");
        this.compute();
      } else if (status === "failed") {
        this.setStatus("failed", this.config.status[`failed.${info.reason}`] || this.config.status["failed.load"]);
      }
    });
  }

  setStatus(state, message) {
    this.status.dataset.calcStatus = state;
    this.status.textContent = message;
    this.root.dataset.calcState = state;
  }

  changed(event) {
    const field = event.target;
    if (!field.name) return; // a search box: it only narrows a list
    field.dataset.touched = "1";
    if (field.type === "checkbox") delete field.dataset.raw;
    if (field.tagName === "SELECT") {
      for (const option of field.querySelectorAll("option[data-from-link]")) {
        if (option.value !== field.value) option.remove();
      }
    }
    applyConditions(this.form);
    if (field.name === "memory_gib" || field.name === "device") this.showMemory();
    if (this.live) {
      this.updateLink();
      this.compute();
    } else if (this.runtime && this.runtime.status === "ready") {
      this.results.classList.add("atlas-calc-stale");
      this.setStatus("changed", this.config.status.changed);
    }
  }

  // "Memory per device" typed: the chosen device's label shows that size ("Apple M3 Max · 64 GiB"), as the
  // verdict uses it; the other choices keep their own sizes (data-gib, the number in the label).
  showMemory() {
    const memory = this.form.elements.namedItem("memory_gib");
    const device = this.form.elements.namedItem("device");
    if (!memory || !device || device.tagName !== "SELECT") return;
    for (const option of device.options) {
      if (option.dataset.label !== undefined) option.text = option.dataset.label;
    }
    const typed = memory.value.trim();
    const option = device.selectedOptions[0];
    const gib = option && option.dataset.gib;
    if (!typed || !gib) return;
    if (option.dataset.label === undefined) option.dataset.label = option.text;
    const at = option.dataset.label.lastIndexOf(gib);
    if (at >= 0) option.text = option.dataset.label.slice(0, at) + typed + option.dataset.label.slice(at + gib.length);
  }

  // A reader's config.json (pasted or picked) or GGUF file, read in the page and turned into the
  // custom-model fields by Python (calculators.import_fields); nothing leaves the browser.
  async importModel() {
    const box = this.importBox;
    const error = box.querySelector("[data-import-error]");
    const done = box.querySelector("[data-import-done]");
    const say = (line, text) => {
      line.textContent = text;
      line.hidden = !text;
    };
    say(error, "");
    say(done, "");
    const file = box.querySelector("[data-import-file]").files[0];
    const pasted = box.querySelector("[data-import-text]").value.trim();
    const lang = this.config.lang;
    let payload;
    let answer;
    if (file && /\.gguf$/i.test(file.name)) {
      let length = Math.min(file.size, GGUF_FIRST_BYTES);
      for (;;) {
        const bytes = new Uint8Array(await file.slice(0, length).arrayBuffer());
        payload = { gguf_prefix_b64: base64(bytes), file_size: file.size, name: file.name, lang };
        answer = await this.runtime.call("calculators.import_fields", payload);
        if (answer.ok || !answer.need_bytes || answer.need_bytes <= length || answer.need_bytes > GGUF_MOST_BYTES) break;
        length = Math.min(file.size, answer.need_bytes);
      }
    } else if (file || pasted) {
      const text = file ? await file.text() : pasted;
      payload = { config_json: text, name: file ? file.name : "config.json", lang };
      answer = await this.runtime.call("calculators.import_fields", payload);
    } else {
      say(error, this.config.messages["calc.import.empty"]);
      return;
    }
    if (!answer.ok) {
      if (answer.detail) console.warn(`config.json/GGUF import: ${answer.detail}`); // the parser's words, never on the page
      say(error, (answer.errors || []).map((e) => this.message(e)).join(" "));
      return;
    }
    for (const [name, value] of Object.entries(answer.fields)) {
      const field = this.form.elements.namedItem(name);
      if (field) {
        setField(field, value);
        field.dataset.touched = "1";
      }
    }
    if (answer.weights) {
      const weights = this.form.elements.namedItem("weights");
      if (weights && [...weights.options].some((o) => o.value === answer.weights)) weights.value = answer.weights;
    }
    applyConditions(this.form);
    const label = file ? file.name : "config.json";
    say(done, this.config.messages["calc.import.done"].replace("{name}", label).replace("{layers}", answer.fields.layers || "?"));
    this.updateLink();
    this.compute();
  }

  // The Run button (or Enter in a field) of a demo that computes on request.
  run() {
    this.updateLink();
    this.compute();
  }

  params() {
    const params = {};
    for (const field of namedFields(this.form)) params[field.name] = fieldValue(field);
    return Object.assign(params, this.linkExtras);
  }

  // The query string: fields that differ from the page's defaults, plus every field of a
  // group that must travel whole (a custom model).
  updateLink() {
    const query = new URLSearchParams();
    for (const field of namedFields(this.form)) {
      const value = fieldValue(field);
      const group = field.closest("fieldset");
      const always = group && group.dataset.alwaysInUrl !== undefined;
      if (always || value !== (field.dataset.default ?? "")) query.set(field.name, value);
    }
    const search = query.toString();
    const url = location.pathname + (search ? `?${search}` : "") + location.hash;
    this.share.href = url;
    // history.replaceState costs 10-20 ms in Chromium: write the address bar once typing pauses.
    clearTimeout(this.linkTimer);
    this.linkTimer = setTimeout(() => history.replaceState(history.state, "", url), LINK_DELAY_MS);
  }

  async compute() {
    if (!this.runtime || this.runtime.status !== "ready") return;
    if (this.inflight) {
      this.queued = true;
      return;
    }
    this.inflight = true;
    const payload = { command: this.config.command, params: this.params(), lang: this.config.lang };
    let response;
    try {
      response = await this.runtime.call(this.config.entry, payload);
    } catch (err) {
      this.inflight = false;
      return; // the runtime failed; its status handler has said so
    }
    this.inflight = false;
    this.linkExtras = {}; // reported once; the link no longer carries them
    if (this.queued) {
      this.queued = false; // a newer input is waiting: skip this answer
      this.compute();
      return;
    }
    this.show(response);
  }

  // The page's own text for a key it knows (the runtime's generic errors), else Python's message.
  message(problem) {
    return this.config.messages[problem.key] || problem.message || problem.key;
  }

  show(response) {
    for (const line of this.root.querySelectorAll("[data-error-for]")) {
      line.hidden = true;
      line.textContent = "";
    }
    for (const field of this.form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
    const general = [];
    for (const problem of [...(response.errors || []), ...(response.warnings || [])]) {
      const line = problem.field
        ? this.root.querySelector(`[data-error-for="${CSS.escape(problem.field)}"]`)
        : null;
      const field = problem.field ? this.form.elements.namedItem(problem.field) : null;
      if (line && field && !field.matches(":disabled")) {
        // Before the reader has touched a field that must be filled in, say so quietly, not as an error.
        const untouched = problem.fill_in && !field.dataset.touched; // Python marks "fill this in" problems
        const text = untouched ? this.config.messages["calc.hint.required"] || this.message(problem) : this.message(problem);
        line.textContent = line.textContent ? `${line.textContent} ${text}` : text;
        line.hidden = false;
        line.classList.toggle("atlas-calc-hint", untouched);
        if (untouched) line.removeAttribute("role");
        else {
          line.setAttribute("role", "alert");
          field.setAttribute("aria-invalid", "true");
        }
        const folded = field.closest("details");
        if (folded) folded.open = true;
      } else {
        general.push(this.message(problem));
      }
    }
    this.errors.replaceChildren(...general.map((text) => Object.assign(document.createElement("p"), { textContent: text })));
    this.errors.hidden = general.length === 0;
    this.results.classList.remove("atlas-calc-pending");
    this.results.removeAttribute("aria-busy");
    delete this.results.dataset.calcPending;
    if (response.ok) {
      this.results.innerHTML = response.html;
      this.results.classList.remove("atlas-calc-stale");
      this.results.hidden = false;
      this.share.hidden = false;
      // Python's markup (escaped there, as the result's): a command-line option stays on one line.
      if (this.summary && response.summary_html) this.summary.innerHTML = response.summary_html;
      activateSteppers(this.results);
      this.setStatus("ready", this.config.status.ready);
    } else {
      // A result for other inputs would mislead: hide it until the inputs are valid again.
      this.results.hidden = this.live;
      this.share.hidden = this.live;
      if (!this.live) this.results.classList.add("atlas-calc-stale");
      if (this.summary) this.summary.textContent = this.config.status.invalid;
      this.setStatus("invalid", this.config.status.invalid);
    }
    this.renders += 1;
    this.root.dataset.calcRenders = String(this.renders);
  }
}

// Start loading at once (default), or on the first interaction with the form
// (globalThis.atlasCalculatorStart = "focus", used by `make bench` to compare the two).
// A link with inputs always starts at once: the reader is waiting for its result.
const startEarly = globalThis.atlasCalculatorStart !== "focus" || location.search.length > 1;
if (startEarly) pageRuntime(); // this module loads async in <head>: the worker starts before the body is parsed

function initAll() {
  for (const root of document.querySelectorAll("[data-atlas-calculator]")) {
    if (root.atlasCalculator) continue; // already running on this page
    const calculator = new Calculator(root);
    root.atlasCalculator = calculator;
    const begin = () => {
      if (!calculator.runtime) calculator.start(pageRuntime());
    };
    if (startEarly) {
      begin();
    } else {
      calculator.form.addEventListener("focusin", begin, { once: true });
      calculator.form.addEventListener("pointerdown", begin, { once: true });
    }
  }
}

// Material's page lifecycle: document$ emits for the first page and again after every
// instant navigation. This module may run before Material's bundle (async in <head>).
onEveryPage(initAll);
