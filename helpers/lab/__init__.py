"""The student's lab around the instruments, by role (the instruments and checks notebooks
import stay in ``helpers``):

* ``validate``: the Validate button's server extension (a count line, then one line per
  failing test cell);
* ``saved_widgets``: the pre-save hook that keeps each instrument's widget state in the file;
* ``kernel_socket``: the kernel's websocket, each message sent at once;
* ``rerun``: what an instrument says to run after a restart, in its note and when its cell is
  run before the cells it needs;
* ``picture_check``: what no instrument's picture may do, checked on the figure (tests).

lab/jupyter_server_config.json names the first three.
"""
