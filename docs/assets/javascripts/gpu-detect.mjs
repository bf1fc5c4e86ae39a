// "Detect my GPU" under the calculators' device picker (calcview.form.gpu_detect_html).
//
// pyodide-start.js loads this module only where the browser has WebGPU (navigator.gpu); without it, or
// without JavaScript, the button stays hidden. A click reads the adapter's own description in the page
// (navigator.gpu.requestAdapter() -> adapter.info, or requestAdapterInfo() in older browsers), hands the four
// strings to the page's Python worker (entry point calculators.gpu_detect, the same runtime and message path
// as the calculator itself) and shows the localized lines it answers, as text only. Exactly one matching
// device is picked in the list, with the change event a reader's pick fires, so the result and the link
// follow. Nothing is sent anywhere: the worker runs in this page.
import { onEveryPage, pageRuntime } from "./pyodide-client.mjs";

const FIELDS = ["vendor", "architecture", "device", "description"];
const MAX_LEN = 200; // as calculators.gpu_detect.MAX_LEN: no real adapter name is longer

// The adapter's four strings ({} when the browser gives no adapter or refuses to describe it).
async function adapterInfo() {
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return {};
    let info = adapter.info;
    if (!info && typeof adapter.requestAdapterInfo === "function") info = await adapter.requestAdapterInfo();
    const out = {};
    for (const key of FIELDS) {
      const value = info ? info[key] : undefined;
      if (typeof value === "string") out[key] = value.slice(0, MAX_LEN);
    }
    return out;
  } catch (err) {
    return {};
  }
}

function pageLang(box) {
  const config = box.closest("[data-atlas-calculator]")?.querySelector("script[data-calc-config]");
  try {
    if (config) return JSON.parse(config.textContent).lang;
  } catch (err) {
    // fall through to the document's language
  }
  return document.documentElement.lang || "en";
}

// Each line as its own paragraph, set with textContent: the adapter's strings never become markup.
function say(answerBox, lines) {
  answerBox.replaceChildren(...lines.map((line) => Object.assign(document.createElement("p"), { textContent: String(line) })));
}

// Pick the matched device ("rtx-4090", or one of its memory sizes "apple-m3-max@64") as a reader would.
function select(picker, deviceId) {
  const own = (option) => option.value === deviceId || option.value.split("@")[0] === deviceId;
  if (!picker || own(picker.selectedOptions[0] || { value: "" })) return;
  const option = [...picker.options].find(own);
  if (!option) return;
  const search = picker.parentElement?.querySelector(`input[data-filter-for="${CSS.escape(picker.id)}"]`);
  if (search && search.value) {
    search.value = ""; // a narrowed list might hide the pick
    search.dispatchEvent(new Event("input", { bubbles: true }));
  }
  picker.value = option.value;
  picker.dispatchEvent(new Event("change", { bubbles: true }));
}

async function detect(box, button, answerBox) {
  const picker = document.getElementById(box.dataset.gpuDetect);
  button.disabled = true;
  answerBox.setAttribute("aria-busy", "true");
  try {
    const adapter = await adapterInfo();
    const answer = await pageRuntime().call("calculators.gpu_detect", { adapter, lang: pageLang(box) });
    const lines = answer && Array.isArray(answer.lines) ? answer.lines.filter((l) => typeof l === "string") : [];
    say(answerBox, lines.length ? lines : [box.dataset.unavailable]);
    if (answer && typeof answer.match === "string") select(picker, answer.match);
  } catch (err) {
    say(answerBox, [box.dataset.unavailable]); // the runtime failed; its own status line says why
  } finally {
    button.disabled = false;
    answerBox.removeAttribute("aria-busy");
  }
}

function activate() {
  if (!globalThis.navigator || !navigator.gpu || typeof navigator.gpu.requestAdapter !== "function") return;
  for (const box of document.querySelectorAll("[data-gpu-detect]")) {
    if (box.dataset.ready) continue;
    box.dataset.ready = "1";
    const button = box.querySelector("[data-gpu-detect-run]");
    const answerBox = box.querySelector("[data-gpu-detect-answer]");
    if (!button || !answerBox) continue;
    button.addEventListener("click", () => detect(box, button, answerBox));
    box.hidden = false;
  }
}

// Material's page lifecycle (document$), else once the document is parsed: this module may run early.
onEveryPage(activate);
