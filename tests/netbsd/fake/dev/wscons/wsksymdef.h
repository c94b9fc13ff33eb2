/* Stand-in for NetBSD's <dev/wscons/wsksymdef.h>: the KS_* names
 * netbsd/wscons_input.c uses, equal to the values wskbd_map.h carries (the
 * real header is held to those by netbsd_check.sh). */
#ifndef FAKE_WSKSYMDEF_H
#define FAKE_WSKSYMDEF_H

#include "wskbd_map.h"

#define KS_BackSpace WSKS_BackSpace
#define KS_Tab WSKS_Tab
#define KS_Linefeed WSKS_Linefeed
#define KS_Clear WSKS_Clear
#define KS_Return WSKS_Return
#define KS_Escape WSKS_Escape
#define KS_space WSKS_space
#define KS_a WSKS_a
#define KS_z WSKS_z
#define KS_Delete WSKS_Delete
#define KS_agrave WSKS_agrave
#define KS_division WSKS_division
#define KS_thorn WSKS_thorn
#define KS_dead_grave WSKS_dead_first
#define KS_Shift_L WSKS_Shift_L
#define KS_Shift_R WSKS_Shift_R
#define KS_Control_L WSKS_Control_L
#define KS_Control_R WSKS_Control_R
#define KS_Caps_Lock WSKS_Caps_Lock
#define KS_Shift_Lock WSKS_Shift_Lock
#define KS_Alt_L WSKS_Alt_L
#define KS_Alt_R WSKS_Alt_R
#define KS_Multi_key WSKS_Multi_key
#define KS_Mode_switch WSKS_Mode_switch
#define KS_Num_Lock WSKS_Num_Lock
#define KS_Hold_Screen WSKS_Hold_Screen
#define KS_Cmd WSKS_Cmd
#define KS_Cmd1 WSKS_Cmd1
#define KS_Cmd2 WSKS_Cmd2
#define KS_Meta_L WSKS_Meta_L
#define KS_Meta_R WSKS_Meta_R
#define KS_KP_Space WSKS_KP_Space
#define KS_KP_Numbersign WSKS_KP_Numbersign
#define KS_KP_0 WSKS_KP_0
#define KS_KP_Home WSKS_KP_Home
#define KS_f1 WSKS_f1
#define KS_F1 WSKS_F1
#define KS_Home WSKS_Home
#define KS_Cmd_Screen0 WSKS_Cmd_Screen0
#define KS_Cmd_Screen9 WSKS_Cmd_Screen9
#define KS_voidSymbol WSKS_voidSymbol
#define KS_GROUP_Mod WSKS_GROUP_Mod
#define KS_GROUP_Keypad WSKS_GROUP_Keypad
#define KS_GROUP_Function WSKS_GROUP_Function
#define KS_GROUP_Command WSKS_GROUP_Command
#define KS_GROUP_Internal WSKS_GROUP_Internal

#define KB_ENCODING(e) ((e)&0x0000ff00)
#define KB_US 0x0200
#define KB_GR 0x1400
#define KB_TR 0x1700

#endif
