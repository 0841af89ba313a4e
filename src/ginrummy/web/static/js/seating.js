// A table's seating (js/table.js): the *Sit down* form for a visitor where a seat is free (an
// account sits under its name, a guest under a nickname made up if none is typed), the guest's
// *Create an account and keep this game* offer, and leaving a seat before the first deal.
import { api } from "./api.js";
import { el, replaceChildren, toast } from "./dom.js";
import { number, t } from "./i18n.js";
import { errorText, guestNickname } from "./format.js";
import { newInviteBox, upgradeForm } from "./later.js"; // js/account.js's, js/friendinvite.js's (null before they arrive)
import { forgetSeat, prefs, saveSeat } from "./prefs.js";
import { currentAccount, refreshBalance } from "./session.js";

export function joinForm(page, table) {
  const empty = table ? table.seats.filter((s) => s.kind === "empty") : [];
  const yours = page.entry && page.entry.your_seat !== null && page.entry.your_seat !== undefined;
  if (page.seat !== null || page.stored || yours || empty.length === 0) {
    replaceChildren(page.regions.join);
    return;
  }
  const account = currentAccount();
  if (account) {
    if (page.regions.join.querySelector("#join-submit")) return; // keep the chosen seat
    const seatChoice = el("select", { id: "join-seat", "aria-label": t("lobby.seat_choice") },
      empty.map((s) => el("option", { value: s.seat }, t("seat.label", { n: s.seat + 1 }))));
    replaceChildren(page.regions.join, el("form", { class: "panel join-form", onsubmit: async (e) => {
      e.preventDefault();
      try {
        const answer = await api.join(page.tableId, { nickname: account.name, seat: Number(seatChoice.value), invite: page.invite });
        saveSeat(page.tableId, { seat: answer.seat, token: answer.token || null, invite: page.invite, name: account.name });
        refreshBalance();
        page.navigate(page.tableId, page.invite);
      } catch (error) {
        toast(errorText(error), "error");
      }
    } }, el("span", {}, t("lobby.playing_as"), " ", el("strong", { class: "player-name", text: account.name })), seatChoice,
    el("button", { type: "submit", class: "primary", id: "join-submit" }, t("lobby.join"))));
    return;
  }
  if (page.regions.join.querySelector("#join-nickname")) return; // keep what is being typed
  const nickname = el("input", { id: "join-nickname", type: "text", maxlength: "24", value: guestNickname() });
  const seatSelect = el("select", { id: "join-seat", "aria-label": t("lobby.seat_choice") },
    empty.map((s) => el("option", { value: s.seat }, t("seat.label", { n: s.seat + 1 }))));
  replaceChildren(page.regions.join, el("form", { class: "panel join-form", onsubmit: async (e) => {
    e.preventDefault();
    if (!nickname.value.trim()) prefs.nickname = ""; // cleared: a name is made up again
    const name = nickname.value.trim() || guestNickname();
    nickname.value = name;
    prefs.nickname = name;
    try {
      const answer = await api.join(page.tableId, { nickname: name, seat: Number(seatSelect.value), invite: page.invite });
      saveSeat(page.tableId, { seat: answer.seat, token: answer.token, invite: page.invite, name });
      page.navigate(page.tableId, page.invite);
    } catch (error) {
      toast(errorText(error), "error");
    }
  } }, el("label", { for: "join-nickname" }, t("lobby.nickname")), nickname, seatSelect,
  el("button", { type: "submit", class: "primary", id: "join-submit" }, t("lobby.join"))));
}

/** For a guest seated in a running match: "Create an account and keep this game". For a
 * seated player before the first deal: leave the table (a buy-in is refunded). */
export function accountBox(page, table) {
  const slot = page.regions.account;
  const token = page.stored && page.stored.token;
  const guestPlaying = !currentAccount() && token && page.seat !== null && page.view && !(page.state && page.state.result);
  if (guestPlaying) {
    if (!slot.querySelector("#upgrade-box")) { // drawn again when js/account.js arrives
      replaceChildren(slot, upgradeForm(() => accountBox(page, page.table), page.tableId, token, (account) => {
        toast(t("account.upgraded", { name: account.name }));
        page.render();
      }));
    }
    return;
  }
  const waiting = table && table.status === "waiting" && page.seat !== null && !page.view;
  replaceChildren(slot, waiting ? el("div", { class: "actions leave-box" },
    table.buy_in ? el("span", {}, t("table.leave_refund", { count: table.buy_in, chips: number(table.buy_in) })) : null,
    el("button", { type: "button", id: "leave-table", onclick: () => leaveTable(page) }, t("table.leave"))) : null,
    inviteBox(page, table));
}

/** A logged-in player seated at a table not over: the friends online, to invite (kept
 * across renders: js/friendinvite.js). */
function inviteBox(page, table) {
  const open = table && (table.status === "waiting" || table.status === "playing");
  if (!currentAccount() || page.seat === null || !open) return null;
  page.inviteBox ||= newInviteBox(() => accountBox(page, page.table), page); // drawn again when it arrives
  return page.inviteBox?.root ?? null;
}

export async function leaveTable(page) {
  try {
    await api.leave(page.tableId, page.stored ? page.stored.token : null);
    forgetSeat(page.tableId);
    if (currentAccount()) refreshBalance();
    page.navigate(null);
  } catch (error) {
    toast(errorText(error), "error");
  }
}
