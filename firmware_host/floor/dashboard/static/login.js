// The floor dashboard's login: the user's own name and secret, posted once; the session's cookie
// (HttpOnly, SameSite=Strict) carries every later request until it ends or the user logs out.
"use strict";
document.getElementById("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("error");
  error.textContent = "";
  const response = await fetch("/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: document.getElementById("user").value, secret: document.getElementById("secret").value }),
  });
  if (response.ok) {
    const next = new URLSearchParams(location.search).get("next") || "/";
    location.assign(next.startsWith("/") && !next.startsWith("//") ? next : "/");
    return;
  }
  const answer = await response.json().catch(() => ({}));
  error.textContent = answer.error || `refused (${response.status})`;
});
