"""Slack listeners: each module parses, authorises and records, then returns (`register`).

`parsing` turns Slack's JSON into the queue's typed work; `registry` registers every listener
module on the Bolt app, in the order Bolt must try them.
"""
