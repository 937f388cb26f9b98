"""Many tables on one broker: the bridge that publishes a table over MQTT, and the hall that reads them all.

Topics (under `base`, default `companion`): `<base>/<table>/availability`
(`online`, or `offline` as the last will), `<base>/<table>/state` (the live
show, retained) and `<base>/<table>/shows` (each finished show), plus Home
Assistant discovery under `homeassistant/`. The `[mqtt]` config section is
read here (companion.mqtt.settings); the hall page is companion.mqtt.hall.
"""
