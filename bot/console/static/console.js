// orienta console: confirmations before destructive forms, and live progress of background jobs. No build step.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});

function pollJobs() {
  const running = [...document.querySelectorAll("[data-job]")].filter((li) => ["en cola", "en curso"].includes(li.dataset.state));
  if (!running.length) return;
  Promise.all(running.map((li) => fetch(`/jobs/${li.dataset.job}`, { credentials: "same-origin" })
    .then((r) => (r.ok ? r.json() : null))
    .then((job) => {
      if (!job) return;
      li.dataset.state = job.state;
      li.querySelector(".job-state").textContent = job.state;
      li.querySelector("progress").value = job.percent;
      li.querySelector(".job-result").textContent = job.result || "";
      if (job.state === "terminado" || job.state === "falló") li.dataset.finished = "1";
    }))).then(() => {
      if ([...document.querySelectorAll("[data-finished]")].length) { window.location.reload(); return; }
      setTimeout(pollJobs, 1000);
    });
}
document.addEventListener("DOMContentLoaded", () => setTimeout(pollJobs, 800));
