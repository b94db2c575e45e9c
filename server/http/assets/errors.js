// Shows every JavaScript error of the page in #page-errors: uncaught errors,
// rejected promises, console.error calls, and what the page reports through
// kbench.reportError (a failed request). People see them, and the headless
// page test fails on them.
'use strict';
window.kbench = window.kbench || {};
(function () {
  const errors = [];
  function render() {
    const box = document.getElementById('page-errors');
    if (!box) return;
    box.hidden = errors.length === 0;
    box.textContent = errors.join('\n');
  }
  function report(message) {
    errors.push(String(message));
    render();
  }
  window.addEventListener('error', (event) => {
    report(`${event.message} (${event.filename}:${event.lineno})`);
  });
  window.addEventListener('unhandledrejection', (event) => {
    const reason = event.reason;
    report(`Unhandled rejection: ${reason && reason.message ? reason.message : reason}`);
  });
  const consoleError = console.error.bind(console);
  console.error = (...args) => {
    report(args.join(' '));
    consoleError(...args);
  };
  document.addEventListener('DOMContentLoaded', render);
  window.kbench.reportError = report;
})();
