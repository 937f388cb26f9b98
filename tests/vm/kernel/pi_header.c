// SPDX-License-Identifier: GPL-2.0
/*
 * The Raspberry Pi's SPI0 on a simulated GPIO chip: a bit-banged SPI bus on
 * the lines the Pi uses for it (SCLK GPIO11, MOSI GPIO10, CE0 GPIO8), with
 * spidev bound to its first device, so /dev/spidev0.0 exists as on a Pi with
 * dtparam=spi=on. Every bit the strip's driver sends then crosses the
 * simulated chip, where the kernel's gpio_value trace event records it.
 *
 * The chip is made first through gpio-sim's configfs, with the label given
 * here; then spi-gpio is loaded, then this module.
 */
#include <linux/device.h>
#include <linux/gpio/machine.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spi/spi.h>
#include <linux/spi/spi_gpio.h>

#define CHIP "pi-header"

static struct gpiod_lookup_table spi0_lines = {
	.dev_id = "spi_gpio.0",
	.table = {
		GPIO_LOOKUP(CHIP, 11, "sck", GPIO_ACTIVE_HIGH),
		GPIO_LOOKUP(CHIP, 10, "mosi", GPIO_ACTIVE_HIGH),
		GPIO_LOOKUP_IDX(CHIP, 8, "cs", 0, GPIO_ACTIVE_LOW),
		{ },
	},
};

static struct spi_gpio_platform_data spi0_data = { .num_chipselect = 1 };
static struct platform_device *spi0;
static struct spi_device *spidev0;

static int any_child(struct device *dev, void *data)
{
	return 1;
}

static int __init pi_header_init(void)
{
	struct spi_controller *ctlr;
	struct device *child;
	int err;

	gpiod_add_lookup_table(&spi0_lines);
	spi0 = platform_device_register_data(NULL, "spi_gpio", 0, &spi0_data, sizeof(spi0_data));
	if (IS_ERR(spi0)) {
		err = PTR_ERR(spi0);
		goto no_bus;
	}
	/* spi-gpio is loaded already, so the bus was probed as it was registered: its controller is its child. */
	child = device_find_child(&spi0->dev, NULL, any_child);
	if (!child) {
		err = -EPROBE_DEFER;
		goto no_controller;
	}
	ctlr = container_of(child, struct spi_controller, dev);
	spidev0 = spi_alloc_device(ctlr);
	put_device(child);
	if (!spidev0) {
		err = -ENOMEM;
		goto no_controller;
	}
	spidev0->chip_select = 0;
	spidev0->max_speed_hz = 10000000;
	spidev0->mode = SPI_MODE_0;
	strscpy(spidev0->modalias, "spidev", sizeof(spidev0->modalias));
	spidev0->driver_override = kstrdup("spidev", GFP_KERNEL);
	err = spi_add_device(spidev0);
	if (err) {
		spi_dev_put(spidev0);
		goto no_controller;
	}
	return 0;

no_controller:
	platform_device_unregister(spi0);
no_bus:
	gpiod_remove_lookup_table(&spi0_lines);
	return err;
}

static void __exit pi_header_exit(void)
{
	spi_unregister_device(spidev0);
	platform_device_unregister(spi0);
	gpiod_remove_lookup_table(&spi0_lines);
}

module_init(pi_header_init);
module_exit(pi_header_exit);
MODULE_DESCRIPTION("The Raspberry Pi's SPI0 pins on a simulated GPIO chip, with spidev");
MODULE_LICENSE("GPL");
