// Step-through views: a list of frames drawn by Python (the systolic-array
// demo's cycle-by-cycle grids, atlas/core/kernelview/systolic_demo.py), shown one at a
// time with First / Previous / Play / Next / Last buttons and a slider.
//
// Markup (every label comes from the page, in its language):
//   <div data-stepper>
//     <div data-stepper-controls hidden> <button data-step="first|prev|play|next|last">
//       <input type="range" data-step="to"> </div>
//     <ol> <li data-frame="0"> <svg/> <p><strong>caption</strong> …</p> </li> … </ol>
//   </div>
// Without JavaScript every frame stays visible and the controls stay hidden.
// calculator.mjs calls activateSteppers() on the pre-computed result and on
// every new result.

const STEP_MS = 450;

class Stepper {
  constructor(root) {
    this.root = root;
    this.frames = [...root.querySelectorAll("[data-frame]")];
    this.slider = root.querySelector('[data-step="to"]');
    this.playButton = root.querySelector('[data-step="play"]');
    this.timer = null;
    this.index = 0;
    root.querySelector("[data-stepper-controls]").hidden = false;
    root.classList.add("atlas-stepper-on");
    root.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-step]");
      if (button) this.act(button.dataset.step);
    });
    this.slider.addEventListener("input", () => {
      this.stop();
      this.show(Number(this.slider.value));
    });
    this.show(0);
  }

  act(step) {
    const last = this.frames.length - 1;
    if (step === "play") return this.timer ? this.stop() : this.play();
    this.stop();
    const target = { first: 0, prev: this.index - 1, next: this.index + 1, last }[step];
    if (target !== undefined) this.show(target);
  }

  show(index) {
    this.index = Math.max(0, Math.min(this.frames.length - 1, index));
    this.frames.forEach((frame, i) => {
      frame.hidden = i !== this.index;
    });
    const caption = this.frames[this.index].querySelector("strong");
    this.slider.value = String(this.index);
    if (caption) this.slider.setAttribute("aria-valuetext", caption.textContent);
    this.root.dataset.current = String(this.index);
  }

  play() {
    if (this.index >= this.frames.length - 1) this.show(0);
    this.playButton.textContent = this.playButton.dataset.labelPause;
    this.playButton.setAttribute("aria-pressed", "true");
    this.timer = setInterval(() => {
      if (!this.root.isConnected || this.index >= this.frames.length - 1) this.stop();
      else this.show(this.index + 1);
    }, STEP_MS);
  }

  stop() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.playButton.textContent = this.playButton.dataset.labelPlay;
    this.playButton.setAttribute("aria-pressed", "false");
  }
}

// Start every step-through inside `root` that is not running yet.
export function activateSteppers(root) {
  for (const element of root.querySelectorAll("[data-stepper]")) {
    if (!element.atlasStepper && element.querySelector("[data-frame]")) element.atlasStepper = new Stepper(element);
  }
}
