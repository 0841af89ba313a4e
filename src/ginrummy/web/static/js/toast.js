// Short messages at the bottom of the screen (text only).
import { el } from "./dom.js";

export function toast(text, kind = "info", ms = 5000) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const item = el("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
  box.append(item);
  setTimeout(() => item.remove(), ms);
}
