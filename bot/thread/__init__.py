"""The case thread: what a case shows in Slack, drawn and kept between the services and Slack.

The services hand it what happened (a reply, a decided question, a closed request, a notice) in
domain terms; this folder decides which messages that means, draws them with the renderers, posts
or edits them, and remembers what it posted so the thread can be drawn again.
"""
