// The chip wallet (/wallet): the balance, the daily free top-up and the recent ledger entries.
// GET /api/wallet, POST /api/wallet/topup.
import { api } from "./api.js";
import { el, replaceChildren, toast } from "./dom.js";
import { has, number, t } from "./i18n.js";
import { accountErrorText } from "./account.js";
import { dateText, tableName } from "./format.js";
import { currentAccount, link, setBalance } from "./session.js";

/** The name of an entry's table: its own, else the default one after its first seat (as the
 * lobby names it), else (the table row gone) its id. */
function entryTableName(entry) {
  if (entry.table_name === null || entry.table_name === undefined) return entry.table_id;
  return tableName({ id: entry.table_id, name: entry.table_name,
    seats: entry.table_host ? [{ seat: 0, name: entry.table_host }] : [] });
}

function kindLabel(kind) {
  return has(`wallet.kind.${kind}`) ? t(`wallet.kind.${kind}`) : kind;
}

export class WalletPage {
  constructor(root, go) {
    this.root = root;
    this.go = go;
    this.wallet = null;
    this.error = null;
    this.busy = false;
  }

  async start() {
    if (!currentAccount()) {
      this.go(`/login?next=${encodeURIComponent("/wallet")}`, true);
      return;
    }
    this.render();
    await this.load();
  }

  stop() {} // left: route() detaches this page's host, so a late answer draws out of sight

  rerender() {
    this.render();
  }

  async load() {
    try {
      this.wallet = await api.wallet();
      this.error = null;
      setBalance(this.wallet.balance);
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.render();
  }

  async topup() {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      const answer = await api.topup();
      this.error = null;
      toast(t("wallet.received", { count: answer.received ?? 0, chips: number(answer.received ?? 0) }));
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.busy = false;
    await this.load();
  }

  render() {
    const wallet = this.wallet;
    const topup = wallet ? wallet.topup || {} : {};
    const entries = wallet ? wallet.entries || [] : [];
    replaceChildren(this.root, el("section", { class: "wallet-page", id: "wallet-page", dataset: { loaded: String(Boolean(wallet)) } },
      el("h1", {}, t("wallet.title")),
      el("div", { class: "panel" },
        this.error ? el("p", { class: "form-error", role: "alert", id: "wallet-error" }, this.error) : null,
        wallet ? [
          el("p", { class: "balance-line" }, t("wallet.balance"), " ",
            el("strong", { id: "wallet-balance", dataset: { chips: String(wallet.balance) } }, t("sheet.chips", { count: wallet.balance, chips: number(wallet.balance) }))),
          el("div", { class: "actions" },
            el("button", { type: "button", class: "primary", id: "wallet-topup", disabled: this.busy || !topup.available,
              onclick: () => this.topup() },
            topup.available ? t("wallet.topup", { count: topup.amount ?? 0, chips: number(topup.amount ?? 0) }) : t("wallet.topup_none")),
            topup.available ? null : el("span", { class: "muted", id: "wallet-next" },
              // taken today: the next one tomorrow; else the balance is not below the top-up level
              topup.next_at ? t("wallet.next_topup", { date: dateText(topup.next_at) }) : t("wallet.topup_full"))),
        ] : el("p", { class: "muted" }, t("common.loading"))),
      el("div", { class: "panel" },
        el("h2", {}, t("wallet.entries")),
        entries.length ? el("table", { class: "data-table", id: "wallet-entries" },
          el("thead", {}, el("tr", {},
            el("th", { scope: "col" }, t("wallet.when")), el("th", { scope: "col" }, t("wallet.what")),
            el("th", { scope: "col" }, t("wallet.amount")), el("th", { scope: "col" }, t("wallet.table")))),
          el("tbody", {}, entries.map((entry) => el("tr", { dataset: { kind: entry.kind, amount: String(entry.amount) } },
            el("td", {}, dateText(entry.at)),
            el("td", {}, kindLabel(entry.kind)),
            el("td", { class: entry.amount < 0 ? "amount minus" : "amount plus" }, `${entry.amount > 0 ? "+" : entry.amount < 0 ? "−" : ""}${number(Math.abs(entry.amount))}`),
            el("td", {}, entry.table_id ? link(`/?table=${encodeURIComponent(entry.table_id)}`, entryTableName(entry), { class: "table-link", dataset: { table: entry.table_id } }) : "")))))
          : el("p", { class: "muted" }, wallet ? t("wallet.no_entries") : ""))));
  }
}
