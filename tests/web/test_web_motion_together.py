"""Two states rendered before one animation frame (a computer's draw and discard arriving
together on a loaded machine): js/motion.js plans the first state's flights again from the
second's places, so the draw into the seat still flies beside the discard onto the pile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import ServerProcess, browser_missing, new_page, running_server

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser

# A minimal table (the stock, the pile, seat 1's backs) and four views: the last two are
# rendered one after the other in the same task, so only one frame follows them.
TOGETHER_JS = """async (together) => {
    const app = document.querySelector('script[type="module"]').src;
    const { TableMotion } = await import(new URL('motion.js', app).href);
    const box = (parent, attrs, left, top) => {
        const node = document.createElement('div');
        Object.assign(node.style, { position: 'fixed', left: `${left}px`, top: `${top}px`,
                                    width: '40px', height: '60px' });
        for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
        parent.append(node);
        return node;
    };
    const stock = box(document.body, { id: 'stock' }, 10, 300);
    box(stock, { class: 'card' }, 10, 300);
    const pile = box(document.body, { id: 'discard-pile' }, 80, 300);
    const top = box(pile, { class: 'card', 'data-card': '5h' }, 80, 300);
    const seat = box(document.body, { class: 'seat-box', 'data-seat': '1' }, 400, 20);
    const backs = box(seat, { class: 'backs' }, 400, 20);
    box(backs, { class: 'card' }, 400, 20);
    const opening = [{ seat: 0, action: 'stock' }, { seat: 0, action: 'discard 5h' }];
    const view = (log, topDiscard) => ({ hand_number: 1, upcard: '2c', phase: 'play',
        seats: [{ seat: 0 }, { seat: 1 }], log, top_discard: topDiscard, knock: null });
    const first = view(opening, '5h');
    const drawn = view([...opening, { seat: 1, action: 'stock' }], '5h');
    const discarded = view([...drawn.log, { seat: 1, action: 'discard 9c' }], '9c');
    const motion = new TableMotion();
    const render = (shown, change = () => {}) => {
        motion.capture(shown);
        change();
        motion.play(shown, 0);
    };
    const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
    render(first);
    await frame();
    const flights = [];
    const animate = Element.prototype.animate;
    Element.prototype.animate = function (...args) {
        flights.push(this.closest('#discard-pile') ? 'pile' : this.closest('.seat-box') ? 'seat'
            : 'other');
        return animate.apply(this, args);
    };
    render(drawn, () => box(backs, { class: 'card' }, 420, 20));
    if (!together) await frame();
    render(discarded, () => { backs.lastChild.remove(); top.dataset.card = '9c'; });
    await frame();
    await frame();
    Element.prototype.animate = animate;
    motion.stop();
    return flights.sort();
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder: Path = tmp_path_factory.mktemp("together")
    with running_server(folder) as process:
        yield process


@pytest.mark.parametrize("together", [False, True])
def test_a_draw_and_a_discard_both_fly_when_their_states_share_a_frame(
        server: ServerProcess, browser: Browser, together: bool) -> None:
    context, page = new_page(browser, server.base)
    page.goto("/")
    page.wait_for_selector("#create-form")
    flights = page.evaluate(TOGETHER_JS, together)
    assert flights == ["pile", "seat"]
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()
