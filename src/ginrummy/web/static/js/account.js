// Accounts: the sign-up and log-in pages, the account page, and the form that turns a seated
// guest into an account (POST /api/account/upgrade) without leaving the match.
import { api } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { ACCOUNT_LIMITS as LIMITS, accountErrorText } from "./format.js";
import { t } from "./i18n.js";
import { currentAccount, link, logout, profilePath, setAccount } from "./session.js";

export { accountErrorText }; // js/format.js's (the chat needs it without this module)

const NAME_CHARS = /^[\p{L}\p{Nd}]+(?:[_.-][\p{L}\p{Nd}]+)*$/u;

/** Every problem of a sign-up's name and password the page can see before asking the server
 * (the server checks again, and more: a taken or a staff name), each in the page's language. */
export function signupProblems(name, password) {
  const problems = [];
  const length = [...name].length;
  const { name: names, password: passwords } = LIMITS;
  if (length < names.min || length > names.max || !NAME_CHARS.test(name)) problems.push(t("account.bad_name", names));
  if (password.length < passwords.min || password.length > passwords.max) problems.push(t("account.bad_password", passwords));
  return problems;
}

/** Where to go after logging in: the `next` of the address, only a path of this site. */
export function nextPath(search = location.search) {
  const next = new URLSearchParams(search).get("next") || "/";
  return next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

function credentialFields(prefix, newPassword) {
  return [
    el("label", { for: `${prefix}-name` }, t("account.name")),
    el("input", { id: `${prefix}-name`, name: "name", type: "text", required: true, maxlength: "20",
      autocomplete: "username", autocapitalize: "none", spellcheck: "false" }),
    el("label", { for: `${prefix}-password` }, t("account.password")),
    el("input", { id: `${prefix}-password`, name: "password", type: "password", required: true,
      maxlength: "200", autocomplete: newPassword ? "new-password" : "current-password" }),
  ];
}

/** The log-in, sign-up and account pages. */
export class AccountPage {
  constructor(root, mode, go) {
    this.root = root;
    this.mode = mode; // "login" | "signup" | "account"
    this.go = go;
    this.error = "";
    this.busy = false;
  }

  start() {
    if (this.mode === "account" && !currentAccount()) {
      this.go(`/login?next=${encodeURIComponent("/account")}`, true);
      return;
    }
    if (this.mode !== "account" && currentAccount()) { // logged in already: on to where it leads
      this.go(nextPath(), true);
      return;
    }
    this.render();
  }

  stop() {}

  rerender() {
    this.render();
  }

  render() {
    if (this.mode === "account") {
      this.renderAccount();
      return;
    }
    const signup = this.mode === "signup";
    const prefix = signup ? "signup" : "login";
    const other = signup ? "/login" : "/signup";
    const form = el("form", { id: `${prefix}-form`, class: "panel account-form", onsubmit: (e) => { e.preventDefault(); this.submit(form); } },
      el("h2", {}, t(signup ? "account.signup_title" : "account.login_title")),
      credentialFields(prefix, signup),
      signup ? el("p", { class: "muted" }, t("account.name_rules")) : null,
      el("p", { class: "form-error", id: "account-error", role: "alert", hidden: !this.error }, this.error),
      el("div", { class: "actions" },
        el("button", { type: "submit", class: "primary", id: `${prefix}-submit`, disabled: this.busy },
          t(signup ? "account.signup" : "account.login")),
        link(`${other}${location.search}`, t(signup ? "account.have_account" : "account.no_account"),
          { class: "switch-link" })));
    replaceChildren(this.root, el("section", { class: "account-page" },
      el("h1", {}, t(signup ? "account.signup" : "account.login")), form));
    document.getElementById(`${prefix}-name`)?.focus();
  }

  async submit(form) {
    if (this.busy) return;
    const name = form.elements.name.value.trim();
    const password = form.elements.password.value;
    if (this.mode === "signup") {
      const problems = signupProblems(name, password);
      if (problems.length) {
        this.showError(problems.join(" "));
        return;
      }
    }
    this.busy = true;
    this.showError("");
    try {
      const answer = this.mode === "signup" ? await api.signup(name, password) : await api.login(name, password);
      await setAccount(answer.account);
      this.go(nextPath(), true);
    } catch (error) {
      this.showError(accountErrorText(error));
    } finally {
      this.busy = false;
      const button = document.getElementById(`${this.mode}-submit`);
      if (button) button.disabled = false;
    }
  }

  showError(text) {
    this.error = text;
    const node = document.getElementById("account-error");
    if (node) {
      node.textContent = text;
      node.hidden = !text;
    }
  }

  renderAccount() {
    const account = currentAccount();
    if (!account) return;
    replaceChildren(this.root, el("section", { class: "account-page" },
      el("h1", { class: "player-name", text: account.name }),
      el("div", { class: "panel" },
        el("p", {}, t("account.signed_in_as"), " ", el("strong", { class: "player-name", text: account.name }),
          account.role === "admin" ? el("span", { class: "badge" }, t("account.admin")) : null),
        el("ul", { class: "link-list" },
          el("li", {}, link(profilePath(account.name), t("account.profile"))),
          el("li", {}, link("/history", t("nav.history"))),
          el("li", {}, link("/wallet", t("nav.wallet")))),
        el("button", { type: "button", id: "account-logout", onclick: async () => { await logout(); this.go("/"); } },
          t("account.logout")))));
  }
}

/**
 * "Create an account and keep this game": a guest seated at `tableId` (holding the seat's
 * `token`) becomes an account; the seat and the match go with it. `done(account)` follows.
 */
export function upgradeForm(tableId, token, done) {
  const error = el("p", { class: "form-error", id: "upgrade-error", role: "alert", hidden: true });
  const submit = el("button", { type: "submit", class: "primary", id: "upgrade-submit" }, t("account.upgrade_submit"));
  const form = el("form", { class: "upgrade-form", id: "upgrade-form", onsubmit: async (event) => {
    event.preventDefault();
    submit.disabled = true;
    error.hidden = true;
    try {
      const answer = await api.upgrade({
        name: form.elements.name.value.trim(), password: form.elements.password.value,
        table_id: tableId, token,
      });
      await setAccount(answer.account);
      done(answer.account);
    } catch (failure) {
      error.textContent = accountErrorText(failure);
      error.hidden = false;
    } finally {
      submit.disabled = false;
    }
  } }, credentialFields("upgrade", true), error, submit);
  return el("details", { class: "panel upgrade", id: "upgrade-box" },
    el("summary", {}, t("account.upgrade")),
    el("p", { class: "muted" }, t("account.upgrade_help")),
    form);
}
