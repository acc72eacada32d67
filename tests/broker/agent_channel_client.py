#!/usr/bin/env python3
"""An independent client of the broker's agent channel, on Python's
websockets (Debian's python3-websockets), for agent_channel_test.cpp: it
opens the channel with the agent PAK, says "open", waits for one pushed
frame and prints its type and stack, then sends a frame that is not JSON
and prints the close code the broker answers with.

    agent_channel_client.py URL PAK
"""
import asyncio
import json
import sys

import websockets


async def main(url, pak):
    async with websockets.connect(url, extra_headers={"Authorization": "Bearer " + pak}) as socket:
        print("open", flush=True)
        frame = json.loads(await asyncio.wait_for(socket.recv(), 10))
        print("frame", frame["type"], frame["body"]["stack_id"], flush=True)
        await socket.send("not json")
        try:
            await asyncio.wait_for(socket.recv(), 10)
            print("not closed", flush=True)
        except websockets.ConnectionClosed as closed:
            print("closed", closed.code, flush=True)


asyncio.run(main(sys.argv[1], sys.argv[2]))
