"""GPIO panel on gpiozero's MockFactory: buttons and the lid become events, the lamp follows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from drivers.events import DeviceEvent
from drivers.events.dice import LidChanged
from drivers.gpio import GpioError, TablePanel, pin_factory
from firmware_host.tables.events import DealerCommand

BUTTONS = {"no_more_bets": 17, "reveal": 27, "acknowledge": 24}
LAMP = {"green": 5, "amber": 6, "red": 13}


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory(pin_class=MockPWMPin)
    yield mock
    mock.reset()


@pytest.fixture
def panel(factory: MockFactory) -> Iterator[tuple[TablePanel, list[DeviceEvent]]]:
    events: list[DeviceEvent] = []
    table_panel = TablePanel(
        events.append, BUTTONS, LAMP, buzzer=19, lid=4, factory=factory, button_event=DealerCommand
    )
    yield table_panel, events
    table_panel.close()


def test_button_press_becomes_a_dealer_command(panel, factory: MockFactory) -> None:
    table_panel, events = panel
    factory.pin(17).drive_low()
    factory.pin(17).drive_high()
    factory.pin(24).drive_low()
    assert events == [
        DealerCommand(device="buttons", command="no_more_bets"),
        DealerCommand(device="buttons", command="acknowledge"),
    ]


def test_535_11_i_lid_reed_switch_reports_lid_removed_and_replaced(panel, factory: MockFactory) -> None:
    # § 535.11(i): the controller must know when the lid comes off; the reed switch opens then.
    table_panel, events = panel
    factory.pin(4).drive_low()  # magnet on the switch: lid on
    factory.pin(4).drive_high()  # lid lifted
    assert events == [LidChanged(device="lid", open=False), LidChanged(device="lid", open=True)]


@pytest.mark.parametrize("lid_open", [False, True])
def test_a_mock_lid_is_preset_where_the_journal_left_it_without_a_report(
    panel, factory: MockFactory, lid_open: bool
) -> None:
    table_panel, events = panel
    table_panel.preset_mock_lid(lid_open)
    assert (events, table_panel.lid.is_pressed) == ([], not lid_open)
    if lid_open:  # the dealer moves the lid
        factory.pin(4).drive_low()
    else:
        factory.pin(4).drive_high()
    assert events == [LidChanged(device="lid", open=not lid_open)]


def test_only_a_mock_lid_can_be_preset(factory: MockFactory) -> None:
    no_lid = TablePanel([].append, BUTTONS, LAMP, factory=factory, button_event=DealerCommand)
    try:
        with pytest.raises(GpioError, match="mock"):
            no_lid.preset_mock_lid(True)
    finally:
        no_lid.close()


def test_lamp_shows_exactly_one_colour(panel, factory: MockFactory) -> None:
    table_panel, _ = panel
    table_panel.show("red")
    assert table_panel.lit() == "red"
    assert [factory.pin(p).state for p in (5, 6, 13)] == [False, False, True]
    table_panel.show("green")
    assert [factory.pin(p).state for p in (5, 6, 13)] == [True, False, False]


def test_buzzer_sounds_once(panel, factory: MockFactory) -> None:
    table_panel, _ = panel
    table_panel.buzz()
    table_panel.buzzer._blink_thread.join(2)
    assert any(state.state for state in factory.pin(19).states)
    assert not factory.pin(19).state


def test_pin_claimed_twice_is_a_gpio_error(factory: MockFactory) -> None:
    with pytest.raises(GpioError, match="gpio:"):
        TablePanel(lambda e: None, {"reveal": 5}, {"green": 5}, factory=factory, button_event=DealerCommand)


def test_unknown_pin_factory_is_a_gpio_error() -> None:
    with pytest.raises(GpioError, match="no pin factory named 'abacus'"):
        pin_factory("abacus")


def test_mock_pin_factory_by_name() -> None:
    assert isinstance(pin_factory("mock"), MockFactory)
