"""The table as an appliance: what a card image does without a screen.

At every boot it reads the files an owner put on the card's boot partition (the Wi-Fi, the table's
name, ssh), and while the table runs it watches the network: with no home network it opens an
access point of its own with a page that sets the Wi-Fi up, and leaves it when the home network
is back. The rules are pure (`bootfiles`, `hotspot`); `network`, `firstboot`, `page` and
`__main__` are the thin shells around them, with a fake network shipped beside the real one.
"""
