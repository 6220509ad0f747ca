// tablehost pages: start the page by the function its script element names (data-start), so no
// page holds an inline script and the Content-Security-Policy can forbid them (docs/security.md).
(() => {
  const name = document.currentScript.dataset.start;
  const start = window[name];
  if (typeof start !== "function") throw new Error(`no page start function ${name}`);
  start();
})();
