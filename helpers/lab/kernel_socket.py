"""The kernel's websocket in the student's lab, each message sent as soon as it is written.

Tornado leaves Nagle's algorithm on for websockets (``WebSocketHandler.set_nodelay``), and
Jupyter Server does not turn it off. A control change answers with several small messages
(status, the control's echo, the picture, status): once the first is on its way, the next
wait in the server's socket until the browser acknowledges it, and a browser delays its
acknowledgements by up to 40 ms. That wait was most of the time from a control change to
the new picture (benchmarks/browser_latency.py: the "back" column, kernel to page).

``PromptConnection`` is Jupyter Server's own kernel websocket connection with TCP_NODELAY
set when the browser connects (lab/jupyter_server_config.json names it as
``ServerApp.kernel_websocket_connection_class``).
"""

from __future__ import annotations

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection


class PromptConnection(ZMQChannelsWebsocketConnection):
    """ZMQChannelsWebsocketConnection whose socket sends each message at once."""

    def connect(self):
        self.websocket_handler.set_nodelay(True)
        return super().connect()
