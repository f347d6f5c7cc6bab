/* keys.h: the key codes the terminal layer reads and the views act on: printable and control
 * characters as themselves, the others above Unicode's range. Its own header so that the
 * terminal (term.c) depends on nothing of the views above it. */
#ifndef NTOP_KEYS_H
#define NTOP_KEYS_H

enum view_key {
	VK_UP = 0x10000, VK_DOWN, VK_LEFT, VK_RIGHT, VK_PGUP, VK_PGDN, VK_HOME, VK_END,
	VK_ENTER, VK_ESC, VK_BACKSPACE, VK_F1, VK_RESIZE,
};

#endif
